import type { Logger } from '@nestjs/common';

/**
 * Logs an outage of a store once, not once per request: a warning with the first failure's
 * reason when calls start being answered `Server busy`, and one line when the store answers
 * again, with how many calls were refused meanwhile.
 * @internal
 */
export class OutageLog {
  private refused = 0;

  constructor(
    private readonly logger: Logger,
    /** What is unavailable, e.g. `The single-use store`. */
    private readonly what: string,
  ) {}

  /** A call was refused because the store did not answer (`reason`: `timeout`, `rejected OOM`…). */
  failed(reason: string): void {
    if (this.refused++ > 0) return;
    this.logger.warn(
      `${this.what} is unavailable (${reason}): calls that need it answer -32000 Server busy until it answers again`,
    );
  }

  /** The store answered: ends the outage, if there was one. */
  answered(): void {
    if (this.refused === 0) return;
    const refused = this.refused;
    this.refused = 0;
    this.logger.log(
      `${this.what} answers again (${refused} call${refused === 1 ? '' : 's'} answered Server busy meanwhile)`,
    );
  }
}
