import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { InvalidModuleOptionsError } from '../errors/invalid-module-options.error';
import { KEYRING_OPTIONS, type KeyringOptions } from './keyring.options';
import { KeyInUseError } from './key-in-use.error';
import type {
  KeyMaterial,
  KeyringConfig,
  KeyringFingerprint,
  KeyringSnapshot,
} from './keyring-fingerprint';
import { KeyringError } from './keyring.error';
import { ProtectionKey } from './protection-key';

const FINGERPRINT_PROFILE = 'nestjs-mcp-aes-256-gcm-v1';

function toBytes(id: string, material: KeyMaterial): Uint8Array {
  if (material instanceof Uint8Array) return material;
  if (typeof material === 'string' && /^[A-Za-z0-9+/_-]+={0,2}$/.test(material))
    return Buffer.from(material, 'base64');
  throw new KeyringError(`Key "${id}" must be bytes or base64 text`);
}

/**
 * The keys that seal and open framework-protected request state. New state is sealed with the
 * active key; every key in the ring can open. Rotate across a fleet with: stage the new key
 * everywhere, compare fingerprints, activate everywhere, wait one state lifetime, remove the old key.
 *
 * @publicApi
 */
@Injectable()
export class KeyringManager {
  private readonly logger = new Logger('McpKeyring');
  private readonly keys = new Map<string, ProtectionKey>();
  private readonly reservations = new Map<string, number>();
  private activeId: string | undefined;
  private readonly ephemeralIds = new Set<string>();

  private readonly allowEphemeralKey: boolean;

  constructor(@Inject(KEYRING_OPTIONS) options: KeyringOptions) {
    this.allowEphemeralKey = options.allowEphemeralKey === true;
    const config: KeyringConfig | undefined = options.keyring;
    if (!config) return;
    try {
      for (const [id, material] of Object.entries(config.keys))
        this.keys.set(id, new ProtectionKey(id, toBytes(id, material)));
      if (!this.keys.has(config.active))
        throw new KeyringError(`Active key "${config.active}" is not among the configured keys`);
    } catch (error) {
      throw error instanceof KeyringError
        ? new InvalidModuleOptionsError('keyring', error.message)
        : error;
    }
    this.activeId = config.active;
  }

  /**
   * Gives a keyring configured without keys an ephemeral active key, with a prominent warning.
   * Called once the module knows its own protector seals state (never with a custom protector).
   * @internal
   */
  ensureActiveKey(): void {
    if (this.activeId !== undefined) return;
    if (process.env.NODE_ENV === 'production' && !this.allowEphemeralKey) {
      throw new InvalidModuleOptionsError(
        'keyring',
        'is required in production (NODE_ENV=production): without it each instance seals with its own ' +
          'ephemeral key, so a round that lands on another instance, or after a restart, is refused. ' +
          'Give every instance the same keyring (docs/key-rotation.md shows how to make one), or set ' +
          '`allowEphemeralKey: true` for a single instance that may lose its flows on restart.',
      );
    }
    const id = `ephemeral-${randomBytes(6).toString('hex')}`;
    this.keys.set(id, new ProtectionKey(id, randomBytes(32)));
    this.ephemeralIds.add(id);
    this.activeId = id;
    this.logger.warn(
      '*** No request-state keyring configured: using an EPHEMERAL key. Sealed state will not survive a restart ' +
        'and cannot continue on another instance. Configure the "keyring" option in production. ***',
    );
  }

  /** Adds a key that can open state but does not seal yet. Idempotent for identical bytes. */
  stageVerificationKey(id: string, material: KeyMaterial): void {
    const bytes = toBytes(id, material);
    const existing = this.keys.get(id);
    if (existing) {
      if (!existing.sameMaterial(bytes))
        throw new KeyringError(`Key "${id}" already exists with different material`);
      return;
    }
    this.keys.set(id, new ProtectionKey(id, bytes));
  }

  /** Makes a staged key the one that seals new state; the former active key keeps opening. */
  activateStagedKey(id: string): void {
    if (!this.keys.has(id)) throw new KeyringError(`Key "${id}" is not staged`);
    this.activeId = id;
  }

  /** Removes a verification-only key; state sealed with it stops opening. */
  removeVerificationKey(id: string): void {
    if (!this.keys.has(id)) throw new KeyringError(`Key "${id}" is not in the keyring`);
    if (id === this.activeId)
      throw new KeyringError(`Key "${id}" is active; activate another key first`);
    if ((this.reservations.get(id) ?? 0) > 0) throw new KeyInUseError(id);
    this.keys.delete(id);
  }

  /** Stages and activates in one step, for a single server. Safe to retry. */
  rotateActiveKey(id: string, material: KeyMaterial): void {
    this.stageVerificationKey(id, material);
    this.activateStagedKey(id);
  }

  /** A view without secrets, with the fingerprint. */
  snapshot(): KeyringSnapshot {
    const others = [...this.keys.keys()].filter((id) => id !== this.activeId).sort();
    return {
      activeKeyId: this.activeId,
      keys: [
        ...(this.activeId === undefined ? [] : [{ id: this.activeId, role: 'active' as const }]),
        ...others.map((id) => ({ id, role: 'verification' as const })),
      ],
      ephemeral: this.activeId !== undefined && this.ephemeralIds.has(this.activeId),
      fingerprint: this.fingerprint(),
    };
  }

  /** A digest that differs whenever any key id, key bytes or the active key differ. */
  fingerprint(): KeyringFingerprint {
    const hash = createHash('sha256').update(`${FINGERPRINT_PROFILE}\n`);
    for (const id of [...this.keys.keys()].sort()) {
      const key = this.keys.get(id) as ProtectionKey;
      hash.update(`${id === this.activeId ? 'active' : 'verification'}\t${id}\t${key.digest()}\n`);
    }
    return { version: 2, profile: FINGERPRINT_PROFILE, value: hash.digest('hex') };
  }

  /** The key that seals, held until `release` is called so that it cannot be removed meanwhile. @internal */
  reserveActiveKey(): { key: ProtectionKey; release: () => void } {
    const key = this.activeId === undefined ? undefined : this.keys.get(this.activeId);
    if (!key) throw new KeyringError('The keyring has no active key');
    this.reservations.set(key.id, (this.reservations.get(key.id) ?? 0) + 1);
    let released = false;
    return {
      key,
      release: () => {
        if (released) return;
        released = true;
        const remaining = (this.reservations.get(key.id) ?? 1) - 1;
        if (remaining > 0) this.reservations.set(key.id, remaining);
        else this.reservations.delete(key.id);
      },
    };
  }

  /** A key by id, for opening. @internal */
  findKey(id: string): ProtectionKey | undefined {
    return this.keys.get(id);
  }
}
