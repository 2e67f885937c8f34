/**
 * What a rate limiter knew when it refused a call: the limit of the window, and what is left of
 * it (nothing, once refused). The draft rate-limit error (SEP-3304) says them when known.
 * @internal
 */
export interface RateLimitFacts {
  readonly limit: number;
  readonly remaining: number;
}

const facts = new WeakMap<object, RateLimitFacts>();

/** Notes what the limiter knew on the exception it refuses with (`McpThrottlerGuard`). @internal */
export function recordRateLimitFacts(exception: object, known: RateLimitFacts): void {
  facts.set(exception, known);
}

/** What the limiter that threw `exception` knew, if it said. @internal */
export function rateLimitFactsOf(exception: unknown): RateLimitFacts | undefined {
  return exception !== null && typeof exception === 'object' ? facts.get(exception) : undefined;
}
