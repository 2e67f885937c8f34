import { port } from '../ports/port';
import type { ConsumedStateStore } from '../stores/one-time/consumed-state-store.interface';

/**
 * DI token of the store each DPoP proof's `jti` is recorded in, so that a proof is accepted once:
 * a {@link ConsumedStateStore} of its own (its own keys and capacity, apart from single-use
 * request states). Filled from `auth.resourceServer.dpop.replayCache`, else Redis when the
 * `redis` option is set (one record for the fleet), else memory.
 * @internal
 */
export const DpopReplayCache = Symbol('DpopReplayCache');

/** The DPoP replay cache port. @internal */
export const DPOP_REPLAY_CACHE_PORT = port<ConsumedStateStore>(
  DpopReplayCache,
  'auth.resourceServer.dpop.replayCache',
);
