import { KeyringManager } from '../../keyring/keyring-manager.service';
import { AesGcmRequestStateProtector } from './aes-gcm-request-state.protector';
import type { RequestStateBinding } from './request-state-binding';
import type { RequestStateLimits } from './request-state-limits';
import type { RequestStateProtector } from './request-state-protector.interface';
import { RequestStateSealer } from './request-state.sealer';

/** The sealer specs' limits: the module's defaults. */
export const LIMITS = {
  maxEncodedBytes: 65_536,
  maxDecodedBytes: 49_152,
  maxLifetimeMs: 900_000,
  maxRounds: 10,
};

/** The sealer specs' "now", in ms since the epoch. */
export const T0 = 1_750_000_000_000;

/** What the sealer specs' states are bound to: a `transfer_funds` call of one caller. */
export const BINDING: RequestStateBinding = {
  endpoint: '/mcp',
  protocolVersion: '2026-07-28',
  method: 'tools/call',
  target: 'transfer_funds',
  partition: 'client:abc',
  stableParams: '{"arguments":{"amount":1e2},"name":"transfer_funds"}',
  stableArguments: () => '{"amount":1e2}',
  definition: 'def-digest-1',
};

/** An AES-GCM protector under a keyring of one key. */
export function testProtector(): AesGcmRequestStateProtector {
  return new AesGcmRequestStateProtector(
    new KeyringManager({ keyring: { active: 'k1', keys: { k1: Buffer.alloc(32, 5) } } }),
  );
}

/** A sealer under {@link LIMITS} changed by `limits`, sealing with `protector` (default: a new {@link testProtector}). */
export function sealerWith(
  limits: Partial<typeof LIMITS> = {},
  protector: RequestStateProtector = testProtector(),
): RequestStateSealer {
  return new RequestStateSealer(
    { ...LIMITS, ...limits } as unknown as RequestStateLimits,
    protector,
  );
}
