import { KeyringError } from '../keyring.error';
import type { KeyWrapper } from '../wrapping/key-wrapper.interface';
import { MAX_FLEET_KEYS, type DesiredKeyring } from './fleet-records';

/**
 * The changes `stage`, `activate` and `remove` make to the fleet's keyring, each refusing what
 * the keyring it is applied to does not allow. They run inside the compare-and-set of the record,
 * so of two changes that race, the second is checked against the first: one wins, the other is
 * refused, and the fleet agrees.
 * @internal
 */
export type FleetChange = (desired: DesiredKeyring) => DesiredKeyring;

/** The refusal of an `activate` that a `remove` of the same key won the race against. @internal */
export function removedWhileActivating(id: string): KeyringError {
  return new KeyringError(
    `Key "${id}" was removed from the fleet's keyring while it was being activated; stage it again to activate it`,
  );
}

/** Stages `id` from `entry`; the same entry again is a no-op. @internal */
export function stageChange(id: string, entry: KeyWrapper.Entry): FleetChange {
  return (desired) => {
    const known = desired.keys.get(id);
    if (known && JSON.stringify(known) !== JSON.stringify(entry))
      throw new KeyringError(`Key "${id}" is staged in the fleet from another entry`);
    if (!known && desired.keys.size >= MAX_FLEET_KEYS)
      throw new KeyringError(`The fleet holds ${MAX_FLEET_KEYS} keys; remove one first`);
    return {
      ...desired,
      keys: new Map(desired.keys).set(id, entry),
      removed: desired.removed.filter((each) => each !== id),
    };
  };
}

/** Makes `id` the active key, unless it was removed (and not staged again) meanwhile. @internal */
export function activateChange(id: string): FleetChange {
  return (desired) => {
    if (desired.removed.includes(id) && !desired.keys.has(id)) throw removedWhileActivating(id);
    return { ...desired, active: id };
  };
}

/**
 * Removes `id`: refused for the active key, and for a key no keyring holds (`held`: whether a
 * live instance reports it) with the answer a single instance gives.
 * @internal
 */
export function removeChange(id: string, held: boolean): FleetChange {
  return (desired) => {
    if (desired.active === id)
      throw new KeyringError(`Key "${id}" is the fleet's active key; activate another key first`);
    if (!desired.keys.has(id) && !held) throw new KeyringError(`Key "${id}" is not in the keyring`);
    const keys = new Map(desired.keys);
    keys.delete(id);
    const removed = [...desired.removed.filter((each) => each !== id), id];
    return { ...desired, keys, removed: removed.slice(-MAX_FLEET_KEYS) };
  };
}
