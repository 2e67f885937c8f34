import type { McpJsonValue } from '../../../kit/json-value';

/**
 * A 2025-era session as a {@link SessionStore} keeps it: what the client declared at `initialize`
 * and what it asked for since. Plain JSON, so any store can serialize it; `version` grows by one
 * with every write, for the stores' compare-and-set.
 *
 * @publicApi
 */
export interface McpSessionRecord {
  /** The `Mcp-Session-Id`: 192 random bits, base64url. */
  readonly sessionId: string;
  readonly version: number;
  /** The protocol version `initialize` negotiated (`2025-11-25`, `2025-06-18`). */
  readonly protocolVersion: string;
  /** The capabilities the client declared at `initialize`. */
  readonly clientCapabilities: Record<string, McpJsonValue>;
  /** The `clientInfo` of `initialize`. */
  readonly clientInfo: Record<string, McpJsonValue>;
  /**
   * Authorization partition of the caller that opened the session: every later request of the
   * session must resolve to the same one, or the session is not found.
   */
  readonly partition: string;
  /** Epoch ms. */
  readonly createdAt: number;
  /** Epoch ms after which the session is gone unless a request extends it (idle expiry). */
  readonly expiresAt: number;
  /** `logging/setLevel`'s level, once set. */
  readonly logLevel?: string;
  /** Resource URIs of `resources/subscribe`. */
  readonly subscriptions: readonly string[];
  /** Ids of the tasks this session created, newest last, for `tasks/list`. */
  readonly taskIds: readonly string[];
}
