import { Logger } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { KeyringManager } from '../../keyring/keyring-manager.service';
import { KeyringRecordIntegrity } from '../../keyring/record-integrity';
import type { McpRedisConnection } from '../../redis/mcp-redis.connection';
import { RedisCommandError } from '../../redis/redis-command.error';
import { CHANGE_CHANNEL, type ChangeEvent } from './change-channel';
import { fleetChannel, type FleetOrigin } from './fleet-channel';
import { encodeFleetMessage } from './fleet-message';
import { RedisFleetBus } from './redis-fleet-bus';

const MAX_EVENT_BYTES = 2_000;
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A subscriber connection: hears what is published on the channels it subscribed to. */
class Subscriber extends EventEmitter {
  readonly channels = new Set<string>();
  subscribe(channel: string): Promise<number> {
    this.channels.add(channel);
    return Promise.resolve(this.channels.size);
  }
}

/** One Redis server's pub/sub, as the instances' connections and an operator's redis-cli see it. */
class PubSub {
  readonly subscribers: Subscriber[] = [];
  /** While true, every command fails as it fails during an outage. */
  down = false;

  /** What `PUBLISH channel message` does. */
  publish(channel: string, message: string): void {
    for (const subscriber of this.subscribers)
      if (subscriber.channels.has(channel)) subscriber.emit('message', channel, message);
  }

  /** The module's connection under `prefix`, as the bus uses it. */
  connection(prefix: string): McpRedisConnection {
    return {
      key: (...parts: string[]) => prefix + parts.join(':'),
      duplicate: () => {
        const subscriber = new Subscriber();
        this.subscribers.push(subscriber);
        return subscriber;
      },
      run: (command: (client: unknown) => Promise<unknown>) =>
        this.down
          ? Promise.reject(new RedisCommandError('unavailable'))
          : command({
              publish: (channel: string, message: string) => {
                this.publish(channel, message);
                return Promise.resolve(1);
              },
            }),
    } as unknown as McpRedisConnection;
  }
}

const integrityOf = (byte: number) =>
  new KeyringRecordIntegrity(
    new KeyringManager({ keyring: { active: 'k1', keys: { k1: Buffer.alloc(32, byte) } } }),
  );

/** Two test channels, the small one with a bound of its own. */
const WIDE = fleetChannel('wide', (value) => (typeof value === 'string' ? value : undefined));
const SMALL = fleetChannel('small', (value) => (typeof value === 'string' ? value : undefined), {
  maxBytes: 200,
  publishing: {
    context: 'Small',
    restored: 'small back',
    failing: (reason) => `small down (${reason})`,
  },
});

/** An instance's bus on `pubSub`, started, with what each channel's listeners heard. */
async function instance(pubSub: PubSub, integrity = integrityOf(1), prefix = 'app:') {
  const bus = new RedisFleetBus(pubSub.connection(prefix), integrity, MAX_EVENT_BYTES);
  bus.onModuleInit();
  const subscriber = pubSub.subscribers.at(-1)!;
  subscriber.emit('ready');
  await settle();
  const heard: string[] = [];
  const changes: ChangeEvent[] = [];
  let resyncs = 0;
  const hear = (channel: string) => (event: unknown, origin: FleetOrigin) =>
    heard.push(`${channel} ${String(event)} ${origin}`);
  bus.subscribe(WIDE, hear('wide'));
  bus.subscribe(SMALL, hear('small'));
  bus.subscribe(CHANGE_CHANNEL, (event) => changes.push(event));
  bus.onResync(() => resyncs++);
  return { bus, subscriber, heard, changes, resyncs: () => resyncs };
}

describe('RedisFleetBus', () => {
  let warn: jest.SpyInstance;
  let log: jest.SpyInstance;
  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());
  const warnings = () => warn.mock.calls.map(([line]) => String(line));

  it("delivers an event to its own channel's listeners only, here at once and on the other instance as remote", async () => {
    const pubSub = new PubSub();
    const a = await instance(pubSub);
    const b = await instance(pubSub);
    a.bus.publish(WIDE, 'w1');
    a.bus.publish(SMALL, 's1');
    b.bus.publish(CHANGE_CHANNEL, { kind: 'listChanged', list: 'tools' });
    // Each hears its own once, as local: not again from Redis.
    expect(a.heard).toEqual(['wide w1 local', 'small s1 local']);
    expect(b.heard).toEqual(['wide w1 remote', 'small s1 remote']);
    expect(a.changes).toEqual([{ kind: 'listChanged', list: 'tools' }]);
    expect(b.changes).toEqual([{ kind: 'listChanged', list: 'tools' }]);
    // One Redis channel under the prefix for all of them.
    expect(pubSub.subscribers.map((subscriber) => [...subscriber.channels])).toEqual([
      ['app:fleet'],
      ['app:fleet'],
    ]);
    expect(warnings()).toEqual([]);
  });

  it('tells only the instance itself what it delivers here', async () => {
    const pubSub = new PubSub();
    const a = await instance(pubSub);
    const b = await instance(pubSub);
    a.bus.deliverHere(WIDE, 'mine');
    expect(a.heard).toEqual(['wide mine local']);
    expect(b.heard).toEqual([]);
  });

  it('drops forged, copied, malformed and oversized messages and events their channel refuses, saying so once per window', async () => {
    const pubSub = new PubSub();
    const b = await instance(pubSub);
    const mine = integrityOf(1);
    const tagged = (
      channel: string,
      event: unknown,
      integrity = mine,
      redisChannel = 'app:fleet',
    ) => encodeFleetMessage({ origin: 'someone', channel, event }, integrity, redisChannel);
    for (const message of [
      // Untagged, or tagged by another keyring.
      'someone {"channel":"wide","event":"w"}',
      tagged('wide', 'forged', integrityOf(2)),
      // Tagged for another prefix's channel.
      tagged('wide', 'copied', mine, 'other:fleet'),
      // Over the small channel's own bound, and over the bus's for a channel without one.
      tagged('small', 'x'.repeat(200)),
      tagged('wide', 'x'.repeat(MAX_EVENT_BYTES)),
      // Tagged, but not an event of its channel.
      tagged('wide', 42),
      tagged('changes', { kind: 'listChanged', list: 'secrets' }),
      tagged('changes', { kind: 'shutdown' }),
      'x'.repeat(100_000),
    ])
      pubSub.publish('app:fleet', message);
    expect(b.heard).toEqual([]);
    expect(b.changes).toEqual([]);
    expect(warnings()).toEqual([
      "A message on app:fleet is not one of the fleet's (unauthenticated, malformed or over its channel's bound) and is dropped",
    ]);
    // What fits its channel's bound is heard.
    pubSub.publish('app:fleet', tagged('small', 'x'.repeat(50)));
    pubSub.publish('app:fleet', tagged('wide', 'x'.repeat(MAX_EVENT_BYTES - 200)));
    expect(b.heard.map((line) => line.length)).toEqual([
      'small  remote'.length + 50,
      'wide  remote'.length + MAX_EVENT_BYTES - 200,
    ]);
  });

  it('ignores, quietly, a channel nothing on this instance uses (an extension it leaves out)', async () => {
    const pubSub = new PubSub();
    const a = await instance(pubSub);
    const b = await instance(pubSub);
    a.bus.publish(
      fleetChannel('elsewhere', (value) => value),
      { any: 'thing' },
    );
    expect(b.heard).toEqual([]);
    expect(warnings()).toEqual([]);
  });

  it('refuses two channels of one name', async () => {
    const pubSub = new PubSub();
    const a = await instance(pubSub);
    const twin = fleetChannel('wide', (value) => value);
    expect(() => a.bus.subscribe(twin, () => undefined)).toThrow(
      'Two fleet channels are named "wide"',
    );
    expect(() => a.bus.publish(twin, 'x')).toThrow('Two fleet channels are named "wide"');
  });

  it('asks its listeners to resync once the subscription is back after an outage, not at the first', async () => {
    const pubSub = new PubSub();
    const a = await instance(pubSub);
    expect(a.resyncs()).toBe(0);
    a.subscriber.emit('ready');
    await settle();
    expect(a.resyncs()).toBe(1);
  });

  it("keeps delivering here while Redis is out, and logs each channel's outage once, in its own words", async () => {
    const pubSub = new PubSub();
    const a = await instance(pubSub);
    const b = await instance(pubSub);
    pubSub.down = true;
    for (let i = 0; i < 3; i++) {
      a.bus.publish(SMALL, `s${i}`);
      a.bus.publish(CHANGE_CHANNEL, { kind: 'resourceUpdated', uri: `test://${i}` });
    }
    await settle();
    expect(a.heard).toEqual(['small s0 local', 'small s1 local', 'small s2 local']);
    expect(a.changes).toHaveLength(3);
    expect(b.heard).toEqual([]);
    expect(warnings()).toEqual([
      'small down (unavailable)',
      expect.stringMatching(
        /^Change notifications cannot reach the other instances \(unavailable\)/,
      ),
    ]);
    pubSub.down = false;
    a.bus.publish(SMALL, 'back');
    await settle();
    expect(b.heard).toEqual(['small back remote']);
    expect(log.mock.calls.map(([line]) => line)).toEqual(['small back']);
  });

  it('hears nothing, and publishes nothing to the fleet, once shut down', async () => {
    const pubSub = new PubSub();
    const a = await instance(pubSub);
    const b = await instance(pubSub);
    b.bus.onApplicationShutdown();
    a.bus.publish(WIDE, 'late');
    expect(b.heard).toEqual([]);
    b.bus.publish(WIDE, 'last');
    expect(b.heard).toEqual(['wide last local']);
    expect(a.heard).toEqual(['wide late local']);
  });
});
