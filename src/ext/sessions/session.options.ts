import { mustNotExceed } from '../../kit/errors/must-not-exceed';
import type { SessionStore } from './store/session-store.interface';
import {
  booleanOption,
  implementing,
  integersWithin,
  objectOption,
  type IntegerBounds,
} from '../../extension-api';

/** The `sessions` options with defaults filled in and values checked. @internal */
export interface SessionOptions {
  /** Whether 2025-era clients get sessions; without, their traffic is refused. */
  readonly enabled: boolean;
  readonly maxSessions: number;
  readonly maxSessionsPerCaller: number;
  readonly idleTimeoutMs: number;
  readonly maxInputRounds: number;
  readonly answerTimeoutMs: number;
  readonly maxPendingRequests: number;
  readonly maxSubscriptions: number;
  /** Declarations plus subscribed URIs one session may hold, in JSON characters. */
  readonly maxSessionBytes: number;
  readonly store: SessionStore | undefined;
}

/** Injection token of the resolved {@link SessionOptions}. @internal */
export const SESSION_OPTIONS = Symbol('SessionOptions');

/** The `sessions` options as the module options spell them. @internal */
export type SessionOptionsInput = Partial<
  Record<Exclude<keyof SessionOptions, 'store'>, unknown>
> & { store?: SessionStore };

/** Default and accepted range of each numeric `sessions` option. @internal */
export const SESSION_OPTION_BOUNDS = {
  // A record is well under 2 KiB: the default is about 20 MiB of memory when full.
  maxSessions: { fallback: 10_000, min: 1, max: 10_000_000 },
  maxSessionsPerCaller: { fallback: 100, min: 1, max: 10_000_000 },
  // Thirty minutes without a request; a client reconnects with a new `initialize` after it.
  idleTimeoutMs: { fallback: 1_800_000, min: 1_000, max: 7 * 24 * 60 * 60 * 1000 },
  // Server-to-client rounds one call may take; the sealed state's own `requestState.maxRounds`
  // still applies to framework-protected flows.
  maxInputRounds: { fallback: 10, min: 1, max: 1_000 },
  // People answer forms: five minutes per answer, then the call ends.
  answerTimeoutMs: { fallback: 300_000, min: 100, max: 24 * 60 * 60 * 1000 },
  // Server-to-client requests of one session waiting for answers at once.
  maxPendingRequests: { fallback: 16, min: 1, max: 10_000 },
  maxSubscriptions: { fallback: 100, min: 0, max: 100_000 },
  // With maxSessions: 10,000 sessions at 8 KiB are 80 MiB of JSON (docs/tasks.md, the worst case).
  maxSessionBytes: { fallback: 8_192, min: 1_024, max: 1_048_576 },
} as const satisfies Record<Exclude<keyof SessionOptions, 'store' | 'enabled'>, IntegerBounds>;

/** Fills the `sessions` defaults and checks each value, naming the first bad option. @internal */
export function resolveSessionOptions(sessions: SessionOptionsInput | undefined): SessionOptions {
  objectOption('sessions', sessions);
  const resolve = integersWithin('sessions', sessions, SESSION_OPTION_BOUNDS);
  const maxSessions = resolve('maxSessions');
  const maxSessionsPerCaller =
    sessions?.maxSessionsPerCaller === undefined
      ? Math.min(SESSION_OPTION_BOUNDS.maxSessionsPerCaller.fallback, maxSessions)
      : resolve('maxSessionsPerCaller');
  mustNotExceed(
    'sessions.maxSessionsPerCaller',
    maxSessionsPerCaller,
    'sessions.maxSessions',
    maxSessions,
  );
  return {
    enabled: booleanOption('sessions.enabled', sessions?.enabled, true),
    maxSessions,
    maxSessionsPerCaller,
    idleTimeoutMs: resolve('idleTimeoutMs'),
    maxInputRounds: resolve('maxInputRounds'),
    answerTimeoutMs: resolve('answerTimeoutMs'),
    maxPendingRequests: resolve('maxPendingRequests'),
    maxSubscriptions: resolve('maxSubscriptions'),
    maxSessionBytes: resolve('maxSessionBytes'),
    store: implementing(
      'sessions.store',
      sessions?.store,
      ['create', 'get', 'replace', 'delete'],
      ', ',
    ),
  };
}
