/**
 * A bearer token the resource server does not accept; `reason` is client-safe (it becomes the
 * challenge's `error_description`) and never contains the token. `unavailable`: the token could
 * not be checked at all (the authorization server's keys or introspection endpoint did not
 * answer), which is answered 503 rather than sending the client to sign in again.
 * @internal
 */
export class TokenRejectedError extends Error {
  constructor(
    readonly reason: string,
    readonly unavailable = false,
  ) {
    super(reason);
    this.name = 'TokenRejectedError';
  }
}
