import type { Logger } from '@nestjs/common';
import { KeyInUseError } from '../key-in-use.error';
import { reasonOf } from '../keyring-entry';
import type { KeyringManager } from '../keyring-manager.service';
import { recordOf, type DesiredKeyring, type InstanceReport } from './fleet-records';

/** A key that failed to unwrap is tried again after this long (or when the fleet changes). */
const UNWRAP_RETRY_MS = 30_000;

/**
 * Brings this instance's keyring to the fleet's desired keyring: stages the keys it lacks (each
 * unwrapped through this instance's own wrapper), activates the fleet's active key, removes the
 * removed ones. It only ever adds before it activates, and never removes the active key.
 * @internal
 */
export class FleetReconciler {
  /** Keys this instance could not stage, with the reason and when it was tried. */
  private readonly failures = new Map<string, { reason: string; seq: number; at: number }>();
  private appliedSeq = 0;

  constructor(
    private readonly keyring: KeyringManager,
    private readonly logger: Logger,
  ) {}

  /** Applies `desired`; answers whether something is left to try again soon (a key in use). */
  async apply(desired: DesiredKeyring): Promise<boolean> {
    let again = false;
    for (const [id, entry] of desired.keys) {
      if (this.keyring.findKey(id)) {
        this.failures.delete(id);
        continue;
      }
      const failed = this.failures.get(id);
      if (failed && failed.seq === desired.seq && Date.now() - failed.at < UNWRAP_RETRY_MS)
        continue;
      try {
        this.keyring.adopt(await this.keyring.unwrap(id, entry));
        this.keyring.announce('staged', id, 'fleet-sync');
        this.failures.delete(id);
        this.logger.log(`Key "${id}" staged from the fleet`);
      } catch (error) {
        const reason = reasonOf(error);
        if (failed?.reason !== reason)
          this.logger.error(`Key "${id}" staged by the fleet could not be staged here: ${reason}`);
        this.failures.set(id, { reason, seq: desired.seq, at: Date.now() });
      }
    }
    const active = desired.active;
    if (active !== undefined && active !== this.keyring.snapshot().activeKeyId) {
      if (this.keyring.findKey(active)) {
        this.keyring.activateHere(active, 'fleet-sync');
        this.logger.log(`Key "${active}" activated by the fleet`);
      } else if (!this.failures.has(active)) {
        this.failures.set(active, {
          reason: 'the fleet activated it, but it is not staged here',
          seq: desired.seq,
          at: Date.now(),
        });
        this.logger.error(`The fleet activated key "${active}", which this instance does not hold`);
      }
    }
    const current = this.keyring.snapshot().activeKeyId;
    for (const id of desired.removed) {
      if (id === current || !this.keyring.findKey(id)) continue;
      try {
        this.keyring.removeHere(id, 'fleet-sync');
        this.logger.log(`Key "${id}" removed by the fleet`);
      } catch (error) {
        if (!(error instanceof KeyInUseError)) throw error;
        again = true;
      }
    }
    this.appliedSeq = desired.seq;
    return again;
  }

  /** Forgets a failure once this instance holds the key another way. */
  forget(id: string): void {
    this.failures.delete(id);
  }

  /** What this instance holds, for the fleet. */
  report(name: string): InstanceReport {
    const snapshot = this.keyring.snapshot();
    const failures = [...this.failures]
      .filter(([id]) => !this.keyring.findKey(id))
      .map(([id, failure]) => [id, failure.reason] as const);
    return {
      name,
      active: snapshot.activeKeyId,
      keys: snapshot.keys.map((key) => key.id),
      fingerprint: snapshot.fingerprint.value,
      failures: recordOf(failures),
      seq: this.appliedSeq,
    };
  }
}
