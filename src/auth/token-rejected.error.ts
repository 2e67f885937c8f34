/**
 * A credential the resource server does not accept; `reason` is client-safe (it becomes the
 * challenge's `error_description`) and never contains the token or the proof. `unavailable`: the
 * token could not be checked at all (the authorization server's keys or introspection endpoint did
 * not answer), which is answered 503 rather than sending the client to sign in again. `error`: the
 * challenge's `error` — the token's (`invalid_token`), or its DPoP proof's.
 * @internal
 */
export class TokenRejectedError extends Error {
  constructor(
    readonly reason: string,
    readonly unavailable = false,
    readonly error: 'invalid_token' | 'invalid_dpop_proof' | 'use_dpop_nonce' = 'invalid_token',
  ) {
    super(reason);
    this.name = 'TokenRejectedError';
  }
}
