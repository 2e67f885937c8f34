import { Injectable } from '@nestjs/common';

/** Counts what the sample flows actually did, so tests can prove a rejected round did nothing. */
@Injectable()
export class SideEffectsService {
  // In memory for the demo; a real service keeps completed ids in its durable store.
  private readonly completedTransfers = new Set<string>();
  private loginAttempts = 0;

  /** Records a transfer once per id; returns whether this call recorded it. */
  recordTransfer(transferId: string): boolean {
    if (this.completedTransfers.has(transferId)) return false;
    this.completedTransfers.add(transferId);
    return true;
  }

  recordLoginAttempt(): void {
    this.loginAttempts++;
  }

  snapshot(): { transfers: number; loginAttempts: number } {
    return { transfers: this.completedTransfers.size, loginAttempts: this.loginAttempts };
  }
}
