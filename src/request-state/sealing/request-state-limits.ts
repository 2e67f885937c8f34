import { InvalidModuleOptionsError } from '../../kit/errors/invalid-module-options.error';
import { integersWithin, type IntegerBounds } from '../../options/option-checks';

/** Bounds of framework-protected request state. @internal */
export interface RequestStateLimits {
  /** Longest accepted or emitted state token, in bytes. */
  maxEncodedBytes: number;
  /** Largest sealed plaintext (framework metadata plus application JSON), in bytes. */
  maxDecodedBytes: number;
  /** How long a flow may last from its first emitted state. */
  maxLifetimeMs: number;
  /** How many states one flow may emit. */
  maxRounds: number;
  /** How many unexpired single-use states the default in-memory store holds at once. */
  maxConsumedStates: number;
  /** Largest data an application saves under one state handle, in UTF-8 bytes of JSON. */
  maxHandleDataBytes: number;
  /** How many state handles the module's repository (memory or Redis) holds at once. */
  maxStateHandles: number;
  /** How many of them one caller (authorization partition) holds. */
  maxStateHandlesPerCaller: number;
  /** Bytes of data (plus 256 per record) the module's state-handle repository holds. */
  maxStateHandleBytes: number;
  /** How many unexpired single-use states of one caller the module's store holds. */
  maxConsumedStatesPerCaller: number;
}

/** Injection token of the resolved `requestState` options ({@link ResolvedRequestStateOptions}). @internal */
export const REQUEST_STATE_LIMITS = Symbol('RequestStateLimits');

/** The resolved `requestState` options: the limits and the single-use default. @internal */
export interface ResolvedRequestStateOptions extends RequestStateLimits {
  /** Whether framework-protected operations that do not say otherwise are single-use. */
  singleUse: boolean;
}

/** Default and accepted range of each `requestState` option. @internal */
export const REQUEST_STATE_LIMIT_BOUNDS = {
  // Ceiling: a state rides in every retry's body and is checked whole before any work. Floor: room
  // for the header (≤ ~130 bytes encoded as ~170), a key id, nonce, tag and a small state.
  maxEncodedBytes: { fallback: 65_536, min: 1_024, max: 1_048_576 },
  // `{"s":null,"k":{}}` alone is 17 bytes; below 64 hardly any state fits.
  maxDecodedBytes: { fallback: 49_152, min: 64, max: 1_048_576 },
  // 30 days: far past any interactive flow, and a cap on how long a leaked state stays usable;
  // iat + lifetime stays a safe integer (the header holds whole milliseconds) for any clock.
  maxLifetimeMs: { fallback: 900_000, min: 1, max: 30 * 24 * 60 * 60 * 1000 },
  // Every round is a client round trip; a thousand is far beyond any real conversation.
  maxRounds: { fallback: 10, min: 1, max: 1_000 },
  // An entry costs about 120 bytes of heap (bench/consumed-states-memory.bench.ts): the default is
  // about 110 MiB when full, and a store larger than 100 million entries belongs outside the process.
  maxConsumedStates: { fallback: 1_000_000, min: 1, max: 100_000_000 },
  // A continuation, not a document: 16 KiB by default; the ceiling matches a sealed state's.
  maxHandleDataBytes: { fallback: 16_384, min: 2, max: 1_048_576 },
  // Full of maximal records the default holds about 10,000 x 16 KiB = 160 MiB; more belongs in Redis.
  maxStateHandles: { fallback: 10_000, min: 1, max: 10_000_000 },
  // 1 %: a hundred callers at their limit leave a fifth of the repository to everyone else.
  maxStateHandlesPerCaller: { fallback: 100, min: 1, max: 10_000_000 },
  // 10,000 records of 6.5 KiB: typical drafts never meet it, 16 KiB ones stop at 4,000.
  maxStateHandleBytes: { fallback: 67_108_864, min: 1_024, max: 17_179_869_184 },
  // 1 % of the default store: 10,000 single-use flows per caller within their lifetime.
  maxConsumedStatesPerCaller: { fallback: 10_000, min: 1, max: 100_000_000 },
} as const satisfies Record<keyof RequestStateLimits, IntegerBounds>;

/**
 * Fills the defaults of the `requestState` options and checks each against its bounds; throws
 * {@link InvalidModuleOptionsError} naming the first bad one.
 * @internal
 */
export function resolveRequestStateLimits(
  limits: Partial<Record<keyof ResolvedRequestStateOptions, unknown>> | undefined,
): ResolvedRequestStateOptions {
  const resolve = integersWithin('requestState', limits, REQUEST_STATE_LIMIT_BOUNDS);
  const singleUse = limits?.singleUse === undefined ? false : limits.singleUse;
  if (typeof singleUse !== 'boolean') {
    throw new InvalidModuleOptionsError('requestState.singleUse', 'must be a boolean');
  }
  const resolved: ResolvedRequestStateOptions = {
    maxEncodedBytes: resolve('maxEncodedBytes'),
    maxDecodedBytes: resolve('maxDecodedBytes'),
    maxLifetimeMs: resolve('maxLifetimeMs'),
    maxRounds: resolve('maxRounds'),
    maxConsumedStates: resolve('maxConsumedStates'),
    maxHandleDataBytes: resolve('maxHandleDataBytes'),
    maxStateHandles: resolve('maxStateHandles'),
    maxStateHandlesPerCaller: resolve('maxStateHandlesPerCaller'),
    maxStateHandleBytes: resolve('maxStateHandleBytes'),
    maxConsumedStatesPerCaller: resolve('maxConsumedStatesPerCaller'),
    singleUse,
  };
  if (resolved.maxDecodedBytes > resolved.maxEncodedBytes) {
    throw new InvalidModuleOptionsError(
      'requestState.maxDecodedBytes',
      'must not exceed requestState.maxEncodedBytes',
    );
  }
  return resolved;
}
