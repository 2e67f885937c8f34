import { hkdfSync } from 'node:crypto';
import { InvalidModuleOptionsError } from '../kit/errors/invalid-module-options.error';
import { implementing, objectOption, positiveInteger, stringList } from '../options/option-checks';
import type { ConsumedStateStore } from '../request-state/stores/one-time/consumed-state-store.interface';
import type { McpDpopOptions } from './mcp-auth-options.interface';

/** Whether the resource server accepts DPoP-bound tokens, and whether it accepts anything else. @internal */
export type DpopMode = 'off' | 'allowed' | 'required';

/** The DPoP options, checked and defaulted. @internal */
export interface DpopOptions {
  readonly mode: DpopMode;
  readonly algorithms: readonly string[];
  /** A proof's `iat` is accepted this many seconds either side of now. */
  readonly proofWindowSeconds: number;
  /** The nonce key (derived from the configured secret) and how often nonces rotate, when asked. */
  readonly nonce: { readonly key: Buffer; readonly rotationSeconds: number } | undefined;
  readonly replayCache: ConsumedStateStore | undefined;
  readonly maxReplayEntries: number;
  readonly maxReplayEntriesPerSubject: number;
}

/** RFC 9449's asymmetric algorithms this module verifies proofs with by default. @internal */
export const DEFAULT_DPOP_ALGORITHMS = ['ES256', 'RS256', 'PS256', 'EdDSA'];
/** Algorithms `jose` verifies that are asymmetric: the only ones a proof may use. */
const ASYMMETRIC = /^(RS|PS|ES)(256|384|512)$|^EdDSA$/;
const MIN_SECRET_BYTES = 32;

function mode(option: string, value: unknown): DpopMode {
  if (value === undefined) return 'allowed';
  if (value === 'off' || value === 'allowed' || value === 'required') return value;
  throw new InvalidModuleOptionsError(option, 'must be "off", "allowed" or "required"');
}

/**
 * The nonce key: HKDF-SHA256 of the configured secret under a label of its own, so nonces never
 * share a key with anything else the app derives from the same secret, and the raw secret is
 * not kept.
 */
function nonceKey(option: string, secret: unknown): Buffer {
  const bytes =
    typeof secret === 'string'
      ? Buffer.from(secret, 'utf8')
      : secret instanceof Uint8Array
        ? Buffer.from(secret)
        : undefined;
  if (bytes === undefined)
    throw new InvalidModuleOptionsError(option, 'must be a string or bytes (at least 32 bytes)');
  if (bytes.length < MIN_SECRET_BYTES)
    throw new InvalidModuleOptionsError(option, `must be at least ${MIN_SECRET_BYTES} bytes`);
  return Buffer.from(hkdfSync('sha256', bytes, 'nestjs-mcp', 'dpop-nonce/v1', 32));
}

function nonce(option: string, value: McpDpopOptions['nonce']): DpopOptions['nonce'] {
  if (objectOption(option, value) === undefined || value === undefined) return undefined;
  const rotationSeconds = positiveInteger(`${option}.rotationSeconds`, value.rotationSeconds, 300);
  if (rotationSeconds > 3600)
    throw new InvalidModuleOptionsError(`${option}.rotationSeconds`, 'must be at most 3600');
  return { key: nonceKey(`${option}.secret`, value.secret), rotationSeconds };
}

/** Checks and defaults `auth.resourceServer.dpop` (a mode, or the full options). @internal */
export function resolveDpopOptions(value: McpDpopOptions | DpopMode | undefined): DpopOptions {
  const option = 'auth.resourceServer.dpop';
  const given: McpDpopOptions =
    typeof value === 'string' ? { mode: value } : (objectOption(option, value) ?? {});
  const algorithms = stringList(`${option}.algorithms`, given.algorithms);
  const bad = algorithms.find((alg) => !ASYMMETRIC.test(alg));
  if (bad !== undefined)
    throw new InvalidModuleOptionsError(
      `${option}.algorithms`,
      `accepts asymmetric signature algorithms only (no "none", no HS*), got "${bad}"`,
    );
  const window = positiveInteger(`${option}.proofWindowSeconds`, given.proofWindowSeconds, 60);
  if (window > 300)
    throw new InvalidModuleOptionsError(`${option}.proofWindowSeconds`, 'must be at most 300');
  const maxReplayEntries = positiveInteger(
    `${option}.maxReplayEntries`,
    given.maxReplayEntries,
    200_000,
  );
  const perSubject = positiveInteger(
    `${option}.maxReplayEntriesPerSubject`,
    given.maxReplayEntriesPerSubject,
    Math.min(20_000, maxReplayEntries),
  );
  return {
    mode: mode(`${option}.mode`, given.mode),
    algorithms: algorithms.length > 0 ? algorithms : DEFAULT_DPOP_ALGORITHMS,
    proofWindowSeconds: window,
    nonce: nonce(`${option}.nonce`, given.nonce),
    replayCache: implementing(`${option}.replayCache`, given.replayCache, ['consume']),
    maxReplayEntries,
    maxReplayEntriesPerSubject: Math.min(perSubject, maxReplayEntries),
  };
}
