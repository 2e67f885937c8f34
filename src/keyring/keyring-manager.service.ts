import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { InvalidModuleOptionsError } from '../kit/errors/invalid-module-options.error';
import { KEYRING_OPTIONS, type KeyringOptions } from './keyring.options';
import { KeyInUseError } from './key-in-use.error';
import {
  checkedWrappedEntry,
  isWrappedEntry,
  keyFromEntry,
  keyFromMaterial,
  type KeyringEntry,
} from './keyring-entry';
import { fingerprintOf, snapshotOf } from './keyring-fingerprint';
import type { KeyMaterial, KeyringFingerprint, KeyringSnapshot } from './keyring-fingerprint';
import type { KeyringFleet } from './fleet/keyring-fleet';
import { KeyringError } from './keyring.error';
import { ProtectionKey } from './protection-key';
import type { KeyWrapper } from './wrapping/key-wrapper.interface';
import type { McpCoreEvents } from '../options/mcp-core-events';
import type { McpKeyringEvent as KeyChange } from '../options/mcp-core-event';

/**
 * The keys that seal and open framework-protected request state. New state is sealed with the
 * active key; every key in the ring can open. Keys are material, or wrapped entries unwrapped
 * through the keyring's {@link KeyWrapper} (a KMS, an HSM) when the keyring loads and when a key
 * is staged. `stage`, `activate` and `remove` rotate a whole fleet in one call when the module
 * has the `redis` option (and this instance alone otherwise); the `…VerificationKey` methods
 * change this instance only.
 *
 * @publicApi
 */
@Injectable()
export class KeyringManager implements OnApplicationShutdown {
  private readonly logger = new Logger('McpKeyring');
  private readonly keys = new Map<string, ProtectionKey>();
  private readonly reservations = new Map<string, number>();
  private activeId: string | undefined;
  private readonly ephemeralIds = new Set<string>();
  private readonly allowEphemeralKey: boolean;
  /** Wrapped entries of the configuration, unwrapped by `load()`. */
  private pending: [string, KeyWrapper.Entry][] = [];
  private wrapper: KeyWrapper | undefined;
  private fleet: KeyringFleet | undefined;

  /** The core's events, for an audit trail of key changes. @internal */
  events: McpCoreEvents | undefined;

  /** Made by the module (inject it): its dependencies are the module's own. @internal */
  constructor(@Inject(KEYRING_OPTIONS) options: KeyringOptions) {
    this.allowEphemeralKey = options.allowEphemeralKey === true;
    const config = options.keyring;
    if (!config) return;
    try {
      for (const [id, entry] of Object.entries(config.keys as Record<string, KeyringEntry>)) {
        if (isWrappedEntry(entry)) this.pending.push([id, checkedWrappedEntry(id, entry)]);
        else this.keys.set(id, keyFromMaterial(id, entry));
      }
      if (!Object.hasOwn(config.keys, config.active))
        throw new KeyringError(`Active key "${config.active}" is not among the configured keys`);
    } catch (error) {
      throw error instanceof KeyringError
        ? new InvalidModuleOptionsError('keyring', error.message)
        : error;
    }
    this.activeId = config.active;
  }

  /**
   * Unwraps the configured wrapped entries through `wrapper` (startup fails naming the key that
   * could not be), and keeps the wrapper for keys staged later. @internal
   */
  async load(wrapper: KeyWrapper | undefined): Promise<void> {
    this.wrapper = wrapper;
    const pending = this.pending;
    this.pending = [];
    try {
      for (const [id, entry] of pending) this.keys.set(id, await keyFromEntry(id, entry, wrapper));
    } catch (error) {
      throw error instanceof KeyringError
        ? new InvalidModuleOptionsError('keyring', error.message)
        : error;
    }
  }

  /** Lets fleet rotation take over `stage`, `activate` and `remove`. @internal */
  attachFleet(fleet: KeyringFleet): void {
    this.fleet = fleet;
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

  /**
   * Stages a key that opens state but does not seal yet: material, or a wrapped entry unwrapped
   * through the keyring's wrapper. With the `redis` option only wrapped entries are accepted, and
   * every instance of the fleet unwraps and stages the entry through its own wrapper; resolves once
   * each live instance holds the key, or after `keyring.fleet.waitMs` with a view saying who does
   * not. Idempotent for the same key.
   */
  async stage(id: string, entry: KeyMaterial | KeyWrapper.Entry): Promise<KeyringSnapshot> {
    if (this.fleet && !isWrappedEntry(entry))
      throw new KeyringError(
        `Key "${id}" is raw material, which never travels to the fleet: stage a wrapped key, or raw material on each instance with stageVerificationKey`,
      );
    const key = await keyFromEntry(id, entry, this.wrapper);
    const held = this.keys.has(id);
    this.adopt(key);
    if (!this.fleet) {
      this.announce('staged', id, 'instance');
      return this.snapshot();
    }
    // Refused by the fleet: this instance does not keep a key the others will not hold.
    return this.fleet.staged(key).then(this.afterFleet('staged', id), (error: unknown) => {
      if (!held) this.keys.delete(id);
      throw error;
    });
  }

  /**
   * Makes a staged key the one that seals new state. With the `redis` option it first waits (up
   * to `keyring.fleet.waitMs`) until every live instance has staged the key, and otherwise fails
   * with a {@link KeyringError} naming those that have not; then every instance activates it. A
   * `remove` of the same key that wins the race makes it fail with a {@link KeyringError}.
   */
  async activate(id: string): Promise<KeyringSnapshot> {
    if (!this.keys.has(id)) throw new KeyringError(`Key "${id}" is not staged`);
    if (this.fleet) return this.fleet.activate(id).then(this.afterFleet('activated', id));
    this.activateStagedKey(id);
    return this.snapshot();
  }

  /**
   * Removes a verification key here and, with the `redis` option, on every instance. Refused with
   * a {@link KeyringError} for the active key (also when an `activate` of it won the race) and for
   * a key no keyring holds.
   */
  async remove(id: string): Promise<KeyringSnapshot> {
    // The fleet's record may be tagged under this very key (the one active when it was last
    // written): the fleet reads it before anything is removed, then removes the key here too.
    if (this.fleet) return this.fleet.removed(id).then(this.afterFleet('removed', id));
    this.removeVerificationKey(id);
    return this.snapshot();
  }

  /** {@link snapshot}, with what every live instance reports when the module has the `redis` option. */
  async fleetSnapshot(): Promise<KeyringSnapshot> {
    return this.fleet ? this.fleet.view() : this.snapshot();
  }

  /** Adds key material that can open state but does not seal yet, here only. Idempotent for identical bytes. */
  stageVerificationKey(id: string, material: KeyMaterial): void {
    this.adopt(keyFromMaterial(id, material));
    this.announce('staged', id, 'instance');
  }

  /** Adds a key; the same key again is a no-op, another key under a held id is refused. @internal */
  adopt(key: ProtectionKey): void {
    const existing = this.keys.get(key.id);
    if (!existing) this.keys.set(key.id, key);
    else if (!existing.sameKeyAs(key))
      throw new KeyringError(`Key "${key.id}" already exists with different material`);
  }

  /** Makes a staged key the one that seals new state, here only; the former active key keeps opening. */
  activateStagedKey(id: string): void {
    this.activateHere(id, 'instance');
  }

  /** {@link activateStagedKey}, said to the core's observers as a change of `scope`. @internal */
  activateHere(id: string, scope: KeyChange['scope']): void {
    if (!this.keys.has(id)) throw new KeyringError(`Key "${id}" is not staged`);
    this.activeId = id;
    this.announce('activated', id, scope);
  }

  /** Removes a verification-only key here only; state sealed with it stops opening. */
  removeVerificationKey(id: string): void {
    this.removeHere(id, 'instance');
  }

  /** {@link removeVerificationKey}, said to the core's observers as a change of `scope`. @internal */
  removeHere(id: string, scope: KeyChange['scope']): void {
    if (!this.keys.has(id)) throw new KeyringError(`Key "${id}" is not in the keyring`);
    if (id === this.activeId)
      throw new KeyringError(`Key "${id}" is active; activate another key first`);
    if ((this.reservations.get(id) ?? 0) > 0) throw new KeyInUseError(id);
    this.keys.delete(id);
    this.announce('removed', id, scope);
  }

  /** Tells the core's observers (an audit trail) that a key changed. @internal */
  announce(action: KeyChange['action'], keyId: string, scope: KeyChange['scope']): void {
    if (this.events?.watched) this.events.publish({ kind: 'keyring', action, keyId, scope });
  }

  /** Tells the observers once the fleet made the change this instance asked for. */
  private afterFleet(action: KeyChange['action'], keyId: string) {
    return (snapshot: KeyringSnapshot): KeyringSnapshot => {
      this.announce(action, keyId, 'fleet');
      return snapshot;
    };
  }

  /** Stages and activates in one step, for a single server. Safe to retry. */
  rotateActiveKey(id: string, material: KeyMaterial): void {
    this.stageVerificationKey(id, material);
    this.activateStagedKey(id);
  }

  /** A view of this instance's keyring without secrets, with the fingerprint. */
  snapshot(): KeyringSnapshot {
    const ephemeral = this.activeId !== undefined && this.ephemeralIds.has(this.activeId);
    return snapshotOf(this.keys, this.activeId, ephemeral);
  }

  /** A digest that differs whenever any key id, key bytes or the active key differ. */
  fingerprint(): KeyringFingerprint {
    return fingerprintOf(this.keys, this.activeId);
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

  /** The key of a wrapped entry, through this keyring's wrapper (for fleet rotation). @internal */
  unwrap(id: string, entry: KeyWrapper.Entry): Promise<ProtectionKey> {
    return keyFromEntry(id, entry, this.wrapper);
  }

  /** Closes the wrapper's sessions and connections. */
  async onApplicationShutdown(): Promise<void> {
    const wrapper = this.wrapper;
    this.wrapper = undefined;
    try {
      await wrapper?.close?.();
    } catch {
      this.logger.warn('The key wrapper failed to close');
    }
  }
}
