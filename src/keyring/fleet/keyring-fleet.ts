import type { KeyringSnapshot } from '../keyring-fingerprint';
import type { ProtectionKey } from '../protection-key';

/** What fleet rotation does for `KeyringManager.stage`, `activate`, `remove` and `fleetSnapshot`. @internal */
export interface KeyringFleet {
  /** `key` is staged here: the fleet stages its entry, and the answer says who holds it. */
  staged(key: ProtectionKey): Promise<KeyringSnapshot>;
  /** Activates `id` everywhere once every live instance holds it; refuses naming those that do not. */
  activate(id: string): Promise<KeyringSnapshot>;
  /** `id` is removed here: the fleet removes it, and the answer says who still holds it. */
  removed(id: string): Promise<KeyringSnapshot>;
  view(): Promise<KeyringSnapshot>;
}

/** One instance's report, as the fleet view shows it. @internal */
export type FleetInstanceView = NonNullable<KeyringSnapshot['fleet']>['instances'][number];
