import { port } from '../../../options/port';
/**
 * Records which single-use request states have been presented, so each is accepted once. The
 * module uses {@link RedisConsumedStateStore} when its `redis` option is set (one record for a
 * whole fleet), else {@link MemoryConsumedStateStore} (per process); provide your own as the
 * `consumedStateStore` module option or as the `ConsumedStateStore` token in any module.
 *
 * @publicApi
 */
export interface ConsumedStateStore {
  /**
   * Records `id` as consumed until `expiresAt` (ms since the epoch) and resolves `true` only for
   * the first presentation of `id` before `expiresAt`; every later or concurrent presentation, and
   * any presentation at or after `expiresAt`, resolves `false`. Must be atomic: two concurrent calls
   * with the same id never both resolve `true`. When the presentation cannot be recorded now (the
   * store unreachable or too slow), reject with {@link ConsumedStateStoreError} naming why
   * (`unavailable`, `timeout`…) rather than resolve `true`: the call is then answered `-32000
   * Server busy`, which the client may retry, and the reason is logged; any other rejection is
   * answered `-32603` as a fault.
   *
   * `owner` names who presents the state (a digest of the caller's authorization partition), for
   * stores that share their capacity fairly, as the module's do: a store with no room for the
   * owner rejects with `ConsumedStateStoreError('share' | 'full', retryAfterMs)`, answered
   * `-32000 Server busy`.
   */
  consume(id: string, expiresAt: number, owner?: string): Promise<boolean>;
  /**
   * {@link consume} for an id its presenter never presents again once an attempt failed — a DPoP
   * proof's `jti` (a retry signs a new proof): recorded as spent at once, so a store that keeps a
   * presentation in doubt until its caller confirms it (the Redis store) needs one write, not two.
   * Optional: without it, `consume` is used.
   */
  record?(id: string, expiresAt: number, owner?: string): Promise<boolean>;
}

/** DI token of the active {@link ConsumedStateStore}. @publicApi */
export const ConsumedStateStore = Symbol('ConsumedStateStore');

/** The ConsumedStateStore port: the `consumedStateStore` option, or a provider of the token. @internal */
export const CONSUMED_STATE_STORE_PORT = port<ConsumedStateStore>(
  ConsumedStateStore,
  'requestState.consumedStateStore',
);
