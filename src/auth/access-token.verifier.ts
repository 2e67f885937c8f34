import type { AuthInfo } from '@modelcontextprotocol/server';

/**
 * Verifies one bearer token for this resource; rejects with `TokenRejectedError` (a client-safe
 * reason) when it is not accepted.
 * @internal
 */
export interface AccessTokenVerifier {
  verify(token: string, resource: URL): Promise<AuthInfo>;
}
