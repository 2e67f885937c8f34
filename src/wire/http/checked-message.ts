/** A POST body that passed the message checks. @internal */
export interface CheckedMessage {
  /** The JSON-RPC message (`JSON.parse` semantics, keys as data). */
  readonly message: unknown;
  /** Its `params.inputResponses` with exact number text, when present. */
  readonly exactInputResponses: unknown;
}
