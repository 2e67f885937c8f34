import { createHash } from 'node:crypto';
import type { KeyringFingerprint, KeyringSnapshot } from './keyring-fingerprint';
import type { ProtectionKey } from './protection-key';

const FINGERPRINT_PROFILE = 'nestjs-mcp-aes-256-gcm-v1';

/** A digest that differs whenever any key id, key bytes or the active key differ. @internal */
export function keyringFingerprint(
  keys: ReadonlyMap<string, ProtectionKey>,
  activeId: string | undefined,
): KeyringFingerprint {
  const hash = createHash('sha256').update(`${FINGERPRINT_PROFILE}\n`);
  for (const id of [...keys.keys()].sort()) {
    const key = keys.get(id) as ProtectionKey;
    hash.update(`${id === activeId ? 'active' : 'verification'}\t${id}\t${key.digest()}\n`);
  }
  return { version: 2, profile: FINGERPRINT_PROFILE, value: hash.digest('hex') };
}

/** A view of a keyring without secrets, with its fingerprint. @internal */
export function keyringSnapshot(
  keys: ReadonlyMap<string, ProtectionKey>,
  activeId: string | undefined,
  ephemeral: boolean,
): KeyringSnapshot {
  const others = [...keys.keys()].filter((id) => id !== activeId).sort();
  return {
    activeKeyId: activeId,
    keys: [
      ...(activeId === undefined ? [] : [{ id: activeId, role: 'active' as const }]),
      ...others.map((id) => ({ id, role: 'verification' as const })),
    ],
    ephemeral,
    fingerprint: keyringFingerprint(keys, activeId),
  };
}
