import type { StateHandleRepository } from '../stores/handles/state-handle-repository.interface';
import type { ConsumedStateStore } from '../stores/one-time/consumed-state-store.interface';
import type { RequestStateProtector } from './request-state-protector.interface';

/**
 * Framework-protected request state: its limits, single use, state handles, and the ports that
 * seal it and record it (`McpModuleOptions.requestState`).
 * @publicApi
 */
export interface McpRequestStateOptions {
  /** Longest state token accepted or emitted, in bytes. Default 65,536. */
  maxEncodedBytes?: number;
  /** Largest sealed plaintext (metadata plus application JSON), in bytes. Default 49,152; at most `maxEncodedBytes`. */
  maxDecodedBytes?: number;
  /** Lifetime of a flow from its first state, in ms. Default 900,000 (15 minutes). */
  maxLifetimeMs?: number;
  /** States one flow may emit. Default 10. */
  maxRounds?: number;
  /**
   * Makes every `FRAMEWORK_PROTECTED` operation single-use unless its decorator says
   * `singleUse: false`: each state it receives is accepted once (see `docs/request-state.md`,
   * "One-time state"). Default `false`.
   */
  singleUse?: boolean;
  /**
   * Unexpired single-use states the module's store (memory per process, Redis per fleet) holds
   * at once; past it, a new single-use state is refused with -32000 (`data.retryAfterMs`) until
   * older ones expire. Default 1,000,000; 1 – 100,000,000. Ignored with a custom
   * `consumedStateStore`.
   */
  maxConsumedStates?: number;
  /**
   * Unexpired single-use states one caller (authorization partition) holds in the module's
   * store; near full, callers holding more than their shrinking share are refused first.
   * Default 10,000.
   */
  maxConsumedStatesPerCaller?: number;
  /**
   * Largest data `McpStateHandleFlow.save()` accepts, in UTF-8 bytes of JSON; more fails the
   * call with -32603. Default 16,384; 2 – 1,048,576.
   */
  maxHandleDataBytes?: number;
  /**
   * State handles the module's repository (memory per process, Redis per fleet) holds at once;
   * past it, saving a new flow answers -32000 (`data.retryAfterMs`) until older ones finish or
   * expire. Default 10,000; 1 – 10,000,000. Ignored with a custom `stateHandleRepository`.
   */
  maxStateHandles?: number;
  /**
   * State handles one caller (authorization partition) holds; near full, callers holding more
   * than their shrinking share are refused first. Default 100.
   */
  maxStateHandlesPerCaller?: number;
  /**
   * Bytes of handle data (plus 256 per record) the module's repository holds; each caller may
   * hold the same fraction of it as of the records. Default 67,108,864 (64 MiB).
   */
  maxStateHandleBytes?: number;
  /**
   * A custom request-state protector (e.g. backed by a KMS). You may instead provide
   * `RequestStateProtector` in any of your modules (`useClass`, `useExisting`, `useFactory`); giving
   * both, or two different ones, fails startup. Default: AES-256-GCM over the keyring.
   */
  protector?: RequestStateProtector;
  /**
   * Where single-use states are recorded as consumed (e.g. Redis, shared by a fleet). You may
   * instead provide `ConsumedStateStore` in any of your modules; giving both, or two different
   * ones, fails startup. Default: on Redis when `redis` is set, else in this process's memory,
   * bounded by `maxConsumedStates`.
   */
  consumedStateStore?: ConsumedStateStore;
  /**
   * Where `McpStateHandles` keeps the continuations of application-protected flows (e.g. a
   * `RedisStateHandleRepository`, shared by a fleet). You may instead provide
   * `StateHandleRepository` in any of your modules; giving both, or two different ones, fails
   * startup. Default: on Redis when `redis` is set, else in this process's memory, bounded by
   * `maxStateHandles`.
   */
  stateHandleRepository?: StateHandleRepository;
}
