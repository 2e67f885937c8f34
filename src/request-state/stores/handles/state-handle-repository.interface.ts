import { port } from '../../../options/port';
/**
 * What a state handle stands for, as the repository keeps it. The repository treats every field
 * as opaque except `binding`, which a redemption must match exactly, and `expiresAt`.
 *
 * @publicApi
 */
export interface StateHandleRecord {
  /** Digest of the caller's authorization partition and the operation the handle was issued for. */
  readonly binding: string;
  /** The application's data for the next round: JSON text, bounded by `requestState.maxHandleDataBytes`. */
  readonly data: string;
  /** When the flow expires, in ms since the epoch: from then on the record must not be redeemable. */
  readonly expiresAt: number;
  /** States the flow has emitted, counting from 1. */
  readonly round: number;
  /**
   * Who holds the flow, for fair shares: a digest of the caller's authorization partition (set by
   * the module). The module's repositories hold each owner to its share of their capacity; others
   * may ignore it.
   */
  readonly owner?: string;
}

/**
 * Where the continuations of `APPLICATION_PROTECTED` flows live while the client holds their
 * handle. `McpStateHandles` issues the handles (256 random bits, base64url) and calls these three
 * operations; each must be atomic. The default keeps records in this process's memory
 * ({@link MemoryStateHandleRepository}); for a fleet use {@link RedisStateHandleRepository} or your
 * own (e.g. a SQL table keyed by handle), as the `stateHandleRepository` module option or as the
 * `StateHandleRepository` token in any module.
 *
 * When a record cannot be read or written now (store full, unreachable, too slow), reject with
 * {@link StateHandleRepositoryError} naming why (`unavailable`, `timeout`, `full`…): the call is
 * answered `-32000 Server busy`, which the client may retry, and the reason is logged; any other
 * rejection is answered `-32603` as a fault. Never resolve as if a redemption succeeded when it
 * could not be recorded.
 *
 * @publicApi
 */
export interface StateHandleRepository {
  /** Stores `record` under `handle`, replacing what it held; it stops existing at `record.expiresAt`. */
  put(handle: string, record: StateHandleRecord): Promise<void>;
  /**
   * The one operation of a retry, compare-and-swap: when `handle` holds an unexpired record whose
   * binding equals `binding`, moves that record (same expiry) to `replacement` — so `handle` can
   * never be redeemed again — and resolves it. Otherwise (missing, expired, already redeemed,
   * other binding) resolves `undefined` and changes nothing. Two concurrent redemptions of one
   * handle never both resolve a record.
   */
  redeem(
    handle: string,
    binding: string,
    replacement: string,
  ): Promise<StateHandleRecord | undefined>;
  /** Removes the record under `handle`, if any (the flow is finished). */
  delete(handle: string): Promise<void>;
}

/** DI token of the active {@link StateHandleRepository}. @publicApi */
export const StateHandleRepository = Symbol('StateHandleRepository');

/** The StateHandleRepository port: the `stateHandleRepository` option, or a provider of the token. @internal */
export const STATE_HANDLE_REPOSITORY_PORT = port<StateHandleRepository>(
  StateHandleRepository,
  'requestState.stateHandleRepository',
);
