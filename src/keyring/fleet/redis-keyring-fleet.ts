import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { McpRedisConnection } from '../../redis/mcp-redis.connection';
import type { McpRedisConnectionClient } from '../../redis/mcp-redis-connection-client';
import { RedisCommandError } from '../../redis/redis-command.error';
import type { KeyringSnapshot } from '../keyring-fingerprint';
import type { KeyringManager } from '../keyring-manager.service';
import { KeyringError } from '../keyring.error';
import type { ProtectionKey } from '../protection-key';
import type { RecordIntegrity } from '../record-integrity';
import { FleetReconciler } from './fleet-reconciler';
import {
  COMPARE_AND_SET,
  decodeDesired,
  encodeDesired,
  encodeNudge,
  initialDesired,
  isForeignNudge,
  MAX_FLEET_KEYS,
  type DesiredKeyring,
} from './fleet-records';
import { fleetSnapshot, lacking } from './fleet-view';
import { FleetInstanceReports, HEARTBEAT_MS } from './fleet-instance-reports';
import type { FleetInstanceView, KeyringFleet } from './keyring-fleet';

const POLL_MS = 100;
const CAS_ATTEMPTS = 5;

/**
 * Key rotation across a fleet that shares Redis. The fleet's keyring (wrapped entries and key
 * labels only, the active key, the removed keys) is one record tagged under the keyring; a change
 * is written with compare-and-set and announced on a channel, and every instance then brings its
 * own keyring to it (unwrapping through its own wrapper) and reports what it holds under a key
 * that expires unless renewed. Activation waits until every live report holds the key.
 * @internal
 */
export class RedisKeyringFleet
  implements KeyringFleet, OnApplicationBootstrap, OnApplicationShutdown
{
  private readonly logger = new Logger('McpKeyring');
  private readonly reconciler: FleetReconciler;
  private readonly origin = randomBytes(12).toString('base64url');
  private readonly desiredKey: string;
  private readonly reports: FleetInstanceReports;
  private readonly channel: string;
  private subscriber: McpRedisConnectionClient | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;
  private redisFailing = false;
  private closed = false;

  constructor(
    private readonly keyring: KeyringManager,
    private readonly integrity: RecordIntegrity,
    private readonly redis: McpRedisConnection,
    private readonly options: { readonly instanceName: string; readonly waitMs: number },
  ) {
    this.reconciler = new FleetReconciler(keyring, this.logger);
    this.desiredKey = redis.key('keyring', 'desired');
    this.reports = new FleetInstanceReports(
      redis,
      integrity,
      this.reconciler,
      options.instanceName,
    );
    this.channel = redis.key('keyring', 'changes');
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
        void this.sync();
    });
    subscriber.on('ready', () => {
      subscriber.subscribe(this.channel).catch(() => undefined);
    });
    await this.sync();
    this.heartbeat = setInterval(() => void this.sync(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    clearInterval(this.heartbeat);
    this.subscriber?.removeAllListeners('message');
    await this.reports.withdraw();
  }

  async staged(key: ProtectionKey): Promise<KeyringSnapshot> {
    const entry = key.entry;
    if (!entry)
      throw new KeyringError(`Key "${key.id}" is raw material, which never travels to the fleet`);
    await this.change((desired) => {
      const known = desired.keys[key.id];
      if (known && JSON.stringify(known) !== JSON.stringify(entry))
        throw new KeyringError(`Key "${key.id}" is staged in the fleet from another entry`);
      if (!known && Object.keys(desired.keys).length >= MAX_FLEET_KEYS)
        throw new KeyringError(`The fleet holds ${MAX_FLEET_KEYS} keys; remove one first`);
      return {
        ...desired,
        keys: { ...desired.keys, [key.id]: entry },
        removed: desired.removed.filter((id) => id !== key.id),
      };
    });
    this.reconciler.forget(key.id);
    return this.await(
      (instance) => instance.keyIds.includes(key.id) || instance.failures[key.id] !== undefined,
    );
  }

  async activate(id: string): Promise<KeyringSnapshot> {
    const ready = await this.await((instance) => instance.keyIds.includes(id));
    const missing = lacking(ready.fleet?.instances ?? [], id, (i) => !i.keyIds.includes(id));
    if (missing.length > 0)
      throw new KeyringError(
        `Key "${id}" was not activated: not every live instance holds it after ${this.options.waitMs} ms: ${missing.join(', ')}`,
      );
    await this.change((desired) => ({ ...desired, active: id }));
    return this.await((instance) => instance.activeKeyId === id);
  }

  async removed(id: string): Promise<KeyringSnapshot> {
    await this.change((desired) => {
      if (desired.active === id)
        throw new KeyringError(`Key "${id}" is the fleet's active key; activate another key first`);
      const keys = { ...desired.keys };
      delete keys[id];
      const removed = [...desired.removed.filter((each) => each !== id), id];
      return { ...desired, keys, removed: removed.slice(-MAX_FLEET_KEYS) };
    });
    return this.await((instance) => !instance.keyIds.includes(id));
  }

  async view(): Promise<KeyringSnapshot> {
    return fleetSnapshot(this.keyring.snapshot(), await this.reports.instances());
  }

  /** Writes a change of the fleet's keyring, applies it here, and tells the others. */
  private async change(edit: (desired: DesiredKeyring) => DesiredKeyring): Promise<void> {
    await this.exclusive(async () => {
      for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
        const raw = await this.redis.run((client) => client.call('GET', this.desiredKey));
        const current =
          raw === null ? initialDesired(this.keyring) : decodeDesired(raw, this.integrity);
        if (!current)
          throw new KeyringError(
            `The fleet's keyring record (${this.desiredKey}) is not one this keyring can verify: it was written under a key this instance lacks (its keyring is older than the fleet's, or foreign). Rotate from an instance that holds the fleet's keys, or delete the record to start the fleet's afresh`,
          );
        const next = { ...edit(current), seq: current.seq + 1 };
        const written = await this.redis.run((client) =>
          client.eval(
            COMPARE_AND_SET,
            1,
            this.desiredKey,
            String(raw ?? ''),
            encodeDesired(next, this.integrity),
          ),
        );
        if (Number(written) !== 1) continue;
        await this.reconcile(next);
        const nudge = encodeNudge(this.origin, this.integrity);
        await this.redis.run((client) => client.publish(this.channel, nudge));
        return;
      }
      throw new KeyringError('The fleet keyring changed under this change too often; try again');
    });
  }

  /** Re-reads the fleet's keyring, applies it, reports; one run at a time, coalesced. */
  private sync(): Promise<void> {
    if (this.queued) return this.queued;
    const next = this.running.then(() => {
      this.queued = undefined;
      return this.syncNow();
    });
    this.queued = next;
    this.running = next.catch(() => undefined);
    return next;
  }

  private async syncNow(): Promise<void> {
    if (this.closed) return;
    try {
      const raw = await this.redis.run((client) => client.call('GET', this.desiredKey));
      const desired = raw === null ? undefined : decodeDesired(raw, this.integrity);
      if (raw !== null && !desired)
        this.logger.warn(
          `The fleet's keyring record (${this.desiredKey}) failed its integrity check (written under a key this instance lacks, or edited); this instance keeps its own keyring`,
        );
      if (desired) await this.reconcile(desired);
      else await this.reports.renew();
      this.redisUp();
    } catch (error) {
      this.redisDown(error);
    }
  }

  private async reconcile(desired: DesiredKeyring): Promise<void> {
    // A key in use by a seal in progress: removed on a later pass, moments from now.
    if (await this.reconciler.apply(desired)) setTimeout(() => void this.sync(), POLL_MS).unref();
    await this.reports.renew();
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.running.then(work);
    this.running = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** The fleet's view once `holds` is true of every live instance, or after `waitMs`. */
  private async await(holds: (instance: FleetInstanceView) => boolean): Promise<KeyringSnapshot> {
    const deadline = Date.now() + this.options.waitMs;
    for (;;) {
      const view = await this.view();
      if (view.fleet?.instances.every(holds) || Date.now() >= deadline) return view;
      await sleep(POLL_MS);
    }
  }

  private redisUp(): void {
    if (!this.redisFailing) return;
    this.redisFailing = false;
    this.logger.log('Keyring reports reach the fleet again');
  }

  private redisDown(error: unknown): void {
    if (this.redisFailing || this.closed) return;
    this.redisFailing = true;
    const reason = error instanceof RedisCommandError ? error.reason : 'unknown';
    this.logger.warn(
      `The fleet's keyring cannot be read or reported (${reason}); this instance keeps its keys and tries again every ${HEARTBEAT_MS / 1000} s`,
    );
  }
}
