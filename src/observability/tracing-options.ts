import { InvalidModuleOptionsError } from '../kit/errors/invalid-module-options.error';
import { objectOption } from '../options/option-checks';

/**
 * What parents the span of a flow's later round: `client` — the trace context the client sent
 * (`_meta`, else the `traceparent` header), as the MCP conventions say, the flow's first round
 * linked; `first-round` — the flow's first round, so every round of a flow is one trace, the
 * client's context linked.
 * @internal
 */
export type RoundParent = 'client' | 'first-round';

/** How the module's spans are tied together. @internal */
export interface TracingOptions {
  readonly roundParent: RoundParent;
}

/** Injection token of the resolved {@link TracingOptions}. @internal */
export const TRACING_OPTIONS = Symbol('TracingOptions');

/** The conventions' parenting. @internal */
export const DEFAULT_TRACING_OPTIONS: TracingOptions = Object.freeze({ roundParent: 'client' });

const ROUND_PARENTS: readonly RoundParent[] = ['client', 'first-round'];

/** The `tracing` options with defaults filled and values checked (names the bad option). @internal */
export function resolveTracingOptions(
  tracing: { roundParent?: unknown } | undefined,
): TracingOptions {
  objectOption('tracing', tracing);
  const roundParent =
    tracing?.roundParent === undefined ? DEFAULT_TRACING_OPTIONS.roundParent : tracing.roundParent;
  if (!ROUND_PARENTS.includes(roundParent as RoundParent)) {
    throw new InvalidModuleOptionsError(
      'tracing.roundParent',
      `must be one of ${ROUND_PARENTS.map((each) => `"${each}"`).join(', ')}`,
    );
  }
  return Object.freeze({ roundParent: roundParent as RoundParent });
}
