import type { McpSessionRecord } from './session-record';
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- referenced by the JSDoc
import type { SessionCapacityError } from './session-capacity.error';
import { port } from '../../../extension-api';

/** What {@link SessionStore.create} enforces besides a fresh id. @publicApi */
export interface SessionCreationLimits {
  /** Unexpired sessions the store holds in all. */
  readonly maxSessions: number;
  /** Unexpired sessions one authorization partition may hold. */
  readonly maxPerPartition: number;
}

/**
 * Where 2025-era sessions live. A record expires at its `expiresAt` (the module moves it forward
 * while the session is used): `get` then answers `undefined`, `replace` `false`. `replace` is a
 * compare-and-set on `version`, so two instances writing one session never lose each other's
 * change. Implement it over a shared database for a fleet; the default is Redis when the module's
 * `redis` option is set, else this process's memory.
 *
 * @publicApi
 */
export interface SessionStore {
  /**
   * Stores a new session; rejects with {@link SessionCapacityError} when the store, or the
   * record's partition, already holds its limit of unexpired sessions — past three-quarters full,
   * a partition's limit shrinks linearly to nothing at full, so the callers holding most are
   * refused first and one holding none still finds room (checked and recorded in one atomic step).
   */
  create(record: McpSessionRecord, limits: SessionCreationLimits): Promise<void>;
  /** The session, unless unknown, expired or deleted. */
  get(sessionId: string): Promise<McpSessionRecord | undefined>;
  /** Stores `next` only if the stored version is `expectedVersion` (`next.version` is one more). */
  replace(next: McpSessionRecord, expectedVersion: number): Promise<boolean>;
  /** Removes the session; answers whether it existed. */
  delete(sessionId: string): Promise<boolean>;
}

/** Injection token of the {@link SessionStore}. @publicApi */
export const SessionStore = Symbol('SessionStore');

/** The SessionStore port: the `sessions.store` option, or a provider of the token. @internal */
export const SESSION_STORE_PORT = port<SessionStore>(SessionStore, 'sessions.store');
