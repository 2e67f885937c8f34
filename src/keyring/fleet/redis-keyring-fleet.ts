import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { McpRedisConnection } from '../../redis/mcp-redis.connection';
import type { McpRedisConnectionClient } from '../../redis/mcp-redis-connection-client';
import type { KeyringSnapshot } from '../keyring-fingerprint';
import type { KeyringManager } from '../keyring-manager.service';
import { KeyringError } from '../keyring.error';
import type { ProtectionKey } from '../protection-key';
import type { RecordIntegrity } from '../record-integrity';
import { FleetReconciler } from './fleet-reconciler';
import {
  activateChange,
  removeChange,
  removedWhileActivating,
  stageChange,
  type FleetChange,
} from './fleet-changes';
import { FleetDesiredRecord, isAbsent, isUnverifiable, newestOf } from './fleet-desired-record';
import { FleetFollower } from './fleet-follower';
import { encodeNudge, initialDesired, isForeignNudge, type DesiredKeyring } from './fleet-records';
import { failureOf, fleetSnapshot, lacking } from './fleet-view';
import { FleetInstanceReports, HEARTBEAT_MS } from './fleet-instance-reports';
import type { FleetInstanceView, KeyringFleet } from './keyring-fleet';

const POLL_MS = 100;
const CAS_ATTEMPTS = 5;

/**
 * Key rotation across a fleet that shares Redis. The fleet's keyring (wrapped entries and key
 * labels only, the active key, the removed keys, a sequence number) is one record tagged under
 * the keyring, with a high-water copy; a change is written to both with compare-and-set (so
 * changes are linearizable: of two that race, the second is checked against the first) and
 * announced on a channel, and every instance then brings its own keyring to it (unwrapping
 * through its own wrapper, never going back to a lower sequence) and reports what it holds under
 * a key that expires unless renewed. Activation waits until every live report holds the key.
 * @internal
 */
export class RedisKeyringFleet
  implements KeyringFleet, OnApplicationBootstrap, OnApplicationShutdown
{
  private readonly logger = new Logger('McpKeyring');
  private readonly reconciler: FleetReconciler;
  private readonly origin = randomBytes(12).toString('base64url');
  private readonly record: FleetDesiredRecord;
  private readonly reports: FleetInstanceReports;
  private readonly follower: FleetFollower;
  private readonly channel: string;
  private subscriber: McpRedisConnectionClient | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly keyring: KeyringManager,
    private readonly integrity: RecordIntegrity,
    private readonly redis: McpRedisConnection,
    private readonly options: { readonly instanceName: string; readonly waitMs: number },
  ) {
    this.reconciler = new FleetReconciler(keyring, this.logger);
    this.record = new FleetDesiredRecord(redis, integrity);
    this.reports = new FleetInstanceReports(
      redis,
      integrity,
      this.reconciler,
      options.instanceName,
    );
    this.channel = redis.key('keyring', 'changes');
    this.follower = new FleetFollower(this.record, this.reports, this.reconciler, this.logger, () =>
      this.nudge(),
    );
  }

  /** Follows the channel, catches up with the fleet's keyring before traffic, then keeps reporting. */
  async onApplicationBootstrap(): Promise<void> {
    const subscriber = this.redis.duplicate();
    this.subscriber = subscriber;
    subscriber.on('message', (channel: string, message: string) => {
      if (
        channel === this.channel &&
        !this.closed &&
        isForeignNudge(message, this.origin, this.integrity)
      )
        void this.follower.sync();
    });
    subscriber.on('ready', () => {
      subscriber.subscribe(this.channel).catch(() => undefined);
    });
    await this.follower.sync();
    this.heartbeat = setInterval(() => void this.follower.sync(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    this.follower.close();
    clearInterval(this.heartbeat);
    this.subscriber?.removeAllListeners('message');
    await this.reports.withdraw();
  }

  async staged(key: ProtectionKey): Promise<KeyringSnapshot> {
    const entry = key.entry;
    if (!entry)
      throw new KeyringError(`Key "${key.id}" is raw material, which never travels to the fleet`);
    await this.change(stageChange(key.id, entry));
    this.reconciler.forget(key.id);
    return this.await(
      (instance) => instance.keyIds.includes(key.id) || failureOf(instance, key.id) !== undefined,
    );
  }

  async activate(id: string): Promise<KeyringSnapshot> {
    // A removal of the key elsewhere reaches this instance while it waits: no point waiting on.
    const removedHere = () => this.keyring.findKey(id) === undefined;
    const ready = await this.await((instance) => instance.keyIds.includes(id), removedHere);
    if (removedHere()) throw removedWhileActivating(id);
    const missing = lacking(ready.fleet?.instances ?? [], id, (i) => !i.keyIds.includes(id));
    if (missing.length > 0)
      throw new KeyringError(
        `Key "${id}" was not activated: not every live instance holds it after ${this.options.waitMs} ms: ${missing.join(', ')}`,
      );
    await this.change(activateChange(id));
    return this.await((instance) => instance.activeKeyId === id);
  }

  async removed(id: string): Promise<KeyringSnapshot> {
    const instances = await this.reports.instances();
    await this.change(
      removeChange(
        id,
        instances.some((each) => each.keyIds.includes(id)),
      ),
    );
    return this.await((instance) => !instance.keyIds.includes(id));
  }

  async view(): Promise<KeyringSnapshot> {
    return fleetSnapshot(this.keyring.snapshot(), await this.reports.instances());
  }

  /**
   * Writes a change of the fleet's keyring, applies it here, and tells the others. The change is
   * made to the newest authentic keyring known (Redis's record, its high-water copy, the one
   * applied here) and numbered above every `seq` any live instance applied, so no instance ever
   * takes it for an older record.
   */
  private async change(edit: FleetChange): Promise<void> {
    await this.follower.exclusive(async () => {
      const reported = await this.reports.highestSeq();
      for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
        const read = await this.record.read();
        if (isUnverifiable(read))
          throw new KeyringError(
            `The fleet's keyring record (${this.record.key}) is not one this keyring can verify: it was written under a key this instance lacks (its keyring is older than the fleet's, or foreign). Rotate from an instance that holds the fleet's keys, or delete ${this.record.keys.join(' and ')} to start the fleet's afresh`,
          );
        const known = isAbsent(read)
          ? initialDesired(this.keyring)
          : (newestOf(read.record, read.copy, this.follower.latest) as DesiredKeyring);
        const seq = Math.max(known.seq, this.follower.latest?.seq ?? 0, reported) + 1;
        const next = { ...edit(known), seq };
        if (!(await this.record.write(read, next))) continue;
        await this.follower.reconcile(next);
        await this.nudge();
        return;
      }
      throw new KeyringError('The fleet keyring changed under this change too often; try again');
    });
  }

  private async nudge(): Promise<void> {
    const nudge = encodeNudge(this.origin, this.integrity);
    await this.redis.run((client) => client.publish(this.channel, nudge));
  }

  /** The fleet's view once `holds` is true of every live instance, or `stop()`, or after `waitMs`. */
  private async await(
    holds: (instance: FleetInstanceView) => boolean,
    stop: () => boolean = () => false,
  ): Promise<KeyringSnapshot> {
    const deadline = Date.now() + this.options.waitMs;
    for (;;) {
      const view = await this.view();
      if (view.fleet?.instances.every(holds) || stop() || Date.now() >= deadline) return view;
      await sleep(POLL_MS);
    }
  }
}
