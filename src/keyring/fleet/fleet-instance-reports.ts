import type { McpRedisConnection } from '../../redis/mcp-redis.connection';
import { clip } from '../../kit/clip';
import type { RecordIntegrity } from '../record-integrity';
import { decodeReport, encodeReport, type InstanceReport } from './fleet-records';
import type { FleetReconciler } from './fleet-reconciler';
import { instanceView } from './fleet-view';
import type { FleetInstanceView } from './keyring-fleet';

/** How often an instance re-reads the fleet's keyring and renews its report. @internal */
export const HEARTBEAT_MS = 5_000;
/** A report not renewed for this long is an instance gone. */
const REPORT_TTL_MS = 3 * HEARTBEAT_MS;
const MAX_INSTANCES = 256;

/**
 * What each instance of the fleet reports it holds: one record per instance under a key that
 * expires unless renewed, and the set of instance names. Reports are tagged under the keyring; an
 * unverifiable one shows as such, an expired one leaves the set.
 * @internal
 */
export class FleetInstanceReports {
  private readonly namesKey: string;

  constructor(
    private readonly redis: McpRedisConnection,
    private readonly integrity: RecordIntegrity,
    private readonly reconciler: FleetReconciler,
    private readonly self: string,
  ) {
    this.namesKey = redis.key('keyring', 'instances');
  }

  /** Renews this instance's report. */
  async renew(): Promise<void> {
    const report = encodeReport(this.reconciler.report(this.self), this.integrity);
    await this.redis.run(async (client) => {
      await client.call('SET', this.reportKey(this.self), report, 'PX', REPORT_TTL_MS);
      await client.call('SADD', this.namesKey, this.self);
    });
  }

  /** Takes this instance out of the fleet's view at once, rather than after its report expires. */
  async withdraw(): Promise<void> {
    await this.redis
      .run(async (client) => {
        await client.call('DEL', this.reportKey(this.self));
        await client.call('SREM', this.namesKey, this.self);
      })
      .catch(() => undefined);
  }

  /** Every live instance's report (this one's as it is now); unverifiable ones as such. */
  async instances(): Promise<FleetInstanceView[]> {
    const views = [instanceView(this.self, this.reconciler.report(this.self), true)];
    for (const { name, report } of await this.others())
      views.push(instanceView(clip(name), report, false));
    return views;
  }

  /**
   * The highest `seq` of the fleet's keyring a live instance reports it applied (its report is
   * authentic, so it can only be replayed lower): what a change must number above, and what an
   * instance that starts with no memory of the fleet must not go below.
   */
  async highestSeq(): Promise<number> {
    let highest = 0;
    for (const { report } of await this.others())
      if (report && report.seq > highest) highest = report.seq;
    return highest;
  }

  /** The other live instances' reports, `undefined` for an unverifiable one; expired ones leave the set. */
  private async others(): Promise<{ name: string; report: InstanceReport | undefined }[]> {
    const self = this.self;
    const names = (await this.redis.run((client) =>
      client.call('SMEMBERS', this.namesKey),
    )) as string[];
    const others = names
      .filter((name) => name !== self && name.length <= 128)
      .slice(0, MAX_INSTANCES);
    const raws = await Promise.all(
      others.map((name) => this.redis.run((client) => client.call('GET', this.reportKey(name)))),
    );
    const live: { name: string; report: InstanceReport | undefined }[] = [];
    const gone: string[] = [];
    others.forEach((name, index) => {
      if (raws[index] === null) return void gone.push(name);
      live.push({ name, report: decodeReport(name, raws[index], this.integrity) });
    });
    if (gone.length > 0)
      await this.redis
        .run((client) => client.call('SREM', this.namesKey, ...gone))
        .catch(() => undefined);
    return live;
  }

  private reportKey(name: string): string {
    return this.redis.key('keyring', 'instance', name);
  }
}
