/**
 * The audit sink cannot take a record now (it failed a moment ago, the queue is full, or the
 * write took too long): a strict call is refused with `-32000` and this `retryAfterMs`.
 * @internal
 */
export class AuditUnavailableError extends Error {
  constructor(readonly retryAfterMs: number) {
    super('The audit trail cannot record now');
  }
}
