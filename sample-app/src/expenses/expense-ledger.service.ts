import { Injectable } from '@nestjs/common';

/** The sample's stand-in for an expenses database: what was approved, by whom. */
@Injectable()
export class ExpenseLedger {
  private readonly approved: { amount: string; description: string; approvedBy: string }[] = [];

  record(entry: { amount: string; description: string; approvedBy: string }): number {
    this.approved.push({ ...entry });
    return this.approved.length;
  }

  count(): number {
    return this.approved.length;
  }
}
