import type { ProtocolError } from '@modelcontextprotocol/server';

/**
 * What the library's innermost step recorded for a call, as it happened: the wire form of an
 * input-required round (its state sealed), a completer's suggestions, or a refusal of the module's
 * own steps. The runner answers from it, so the application's outer interceptors can neither
 * change nor forge an input-required answer, nor turn a refusal into a result.
 * @internal
 */
export type InnermostOutcome =
  | { readonly kind: 'input_required'; readonly wire: McpSealedInputRequired }
  | { readonly kind: 'completion'; readonly values: readonly string[] }
  | { readonly kind: 'refused'; readonly error: ProtocolError };

/**
 * An input-required answer as it goes on the wire: the input requests and the sealed (or
 * application-protected) state token, never the plaintext. It is also what the application's own
 * interceptors see an input-required round return.
 * @publicApi
 */
export class McpSealedInputRequired {
  readonly resultType = 'input_required' as const;
  readonly inputRequests?: Readonly<Record<string, unknown>>;
  readonly requestState?: string;

  /** @internal */
  constructor(inputRequests: Readonly<Record<string, unknown>> | undefined, requestState?: string) {
    if (inputRequests !== undefined) this.inputRequests = inputRequests;
    if (requestState !== undefined) this.requestState = requestState;
    Object.freeze(this);
  }
}
