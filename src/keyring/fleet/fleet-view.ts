import type { KeyringSnapshot } from '../keyring-fingerprint';
import { recordOf, type InstanceReport } from './fleet-records';
import type { FleetInstanceView } from './keyring-fleet';

/**
 * A report that failed its integrity check (another keyring, or edited), as the view shows it.
 * @internal
 */
export const UNVERIFIED = 'unverified';

/** One instance as the view shows it. @internal */
export function instanceView(
  name: string,
  report: InstanceReport | undefined,
  self: boolean,
): FleetInstanceView {
  return {
    name,
    self,
    activeKeyId: report?.active,
    keyIds: report?.keys ?? [],
    fingerprint: report?.fingerprint ?? UNVERIFIED,
    failures: report?.failures ?? recordOf([]),
  };
}

/** This instance's snapshot with the fleet's instances; `agree` when each shows its fingerprint. @internal */
export function fleetSnapshot(
  local: KeyringSnapshot,
  instances: FleetInstanceView[],
): KeyringSnapshot {
  const sorted = [...instances].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const agree = sorted.every(
    (instance) =>
      instance.fingerprint === local.fingerprint.value &&
      Object.keys(instance.failures).length === 0,
  );
  return { ...local, fleet: { agree, instances: sorted } };
}

/** Names of the instances for which `lacks` holds, each with its failure for `id` if it reported one. @internal */
export function lacking(
  instances: readonly FleetInstanceView[],
  id: string,
  lacks: (instance: FleetInstanceView) => boolean,
): string[] {
  return instances.filter(lacks).map((instance) => {
    const failure = failureOf(instance, id);
    return failure === undefined ? instance.name : `${instance.name} (${failure})`;
  });
}

/** The reason `instance` reported for failing to stage `id`, if it did. @internal */
export function failureOf(instance: FleetInstanceView, id: string): string | undefined {
  return Object.hasOwn(instance.failures, id) ? instance.failures[id] : undefined;
}
