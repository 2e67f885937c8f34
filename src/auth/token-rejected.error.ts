/**
 * A bearer token the resource server does not accept; `reason` is client-safe (it becomes the
 * challenge's `error_description`) and never contains the token.
 * @internal
 */
export class TokenRejectedError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'TokenRejectedError';
  }
}
