import { Injectable } from '@nestjs/common';

/** Counts what the sample flows actually did, so tests can prove a rejected round did nothing. */
@Injectable()
export class SideEffectsService {
  private transfers = 0;
  private loginAttempts = 0;

  recordTransfer(): void {
    this.transfers++;
  }

  recordLoginAttempt(): void {
    this.loginAttempts++;
  }

  snapshot(): { transfers: number; loginAttempts: number } {
    return { transfers: this.transfers, loginAttempts: this.loginAttempts };
  }
}
