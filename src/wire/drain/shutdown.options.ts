import { InvalidModuleOptionsError } from '../../kit/errors/invalid-module-options.error';
import { nonNegativeInteger, objectOption } from '../../options/option-checks';

/** How an instance drains on shutdown (`shutdown` option), checked. @internal */
export interface ShutdownOptions {
  /** Longest the drain takes, from the shutdown signal until the HTTP server is closed. */
  readonly graceMs: number;
  /** How long it keeps taking new requests, readiness down, before it refuses new work and finishes what is in flight. */
  readonly drainDelayMs: number;
}

/** Injection token of the resolved {@link ShutdownOptions}. @internal */
export const SHUTDOWN_OPTIONS = Symbol('ShutdownOptions');

const DEFAULT_GRACE_MS = 10_000;
const MAX_GRACE_MS = 600_000;

/** Checks the `shutdown` option. @internal */
export function resolveShutdownOptions(
  shutdown: { graceMs?: number; drainDelayMs?: number } | undefined,
): ShutdownOptions {
  const given = objectOption('shutdown', shutdown);
  const graceMs = nonNegativeInteger('shutdown.graceMs', given?.graceMs, DEFAULT_GRACE_MS);
  if (graceMs > MAX_GRACE_MS)
    throw new InvalidModuleOptionsError(
      'shutdown.graceMs',
      `must be at most ${MAX_GRACE_MS.toLocaleString('en-US')}`,
    );
  const drainDelayMs = nonNegativeInteger('shutdown.drainDelayMs', given?.drainDelayMs, 0);
  if (drainDelayMs > graceMs)
    throw new InvalidModuleOptionsError('shutdown.drainDelayMs', 'must be at most graceMs');
  return { graceMs, drainDelayMs };
}
