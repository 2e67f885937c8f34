import { Redis } from 'ioredis';
import { AwsKmsKeyWrapper } from '../../../src/entry/aws-kms';
import { CapturingLogger, newKeyring, startSampleApp } from '../../fixtures/sample-app';
import { ADAPTERS, type AdapterName, type TestServer } from '../../utils/bootstrap';
import { kidOf } from '../../utils/mcp';
import { startMotoKms, type MotoKms } from '../../utils/moto-kms';
import {
  closeRedisClient,
  startRedisServer,
  type RedisServerHandle,
} from '../../utils/redis-server';
import { sleep, until } from '../../utils/wait';

import { transferAcross } from '../../utils/sample-calls';
import { keyringAdmin } from '../../utils/keyring-admin';

const ADMIN_TOKEN = 'keyring-fleet-admin-0c4a';
const DONE = 'Transferred 12.50 to bob';
const RECORD = 'nestjs-mcp:keyring:desired';
const HIGH_WATER = 'nestjs-mcp:keyring:desired-high-water';
/** How long activate waits before it is sent (remove, when negative), run after run. */
const LEADS_MS = [0, 4, -4, 8, -8, 15];
/** Key ids named like what every plain object inherits. */
const BUILT_IN_IDS = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'];

interface Snapshot {
  activeKeyId: string;
  keys: { id: string }[];
  fleet?: {
    agree: boolean;
    instances: { name: string; activeKeyId: string; keyIds: string[] }[];
  };
}

const idsOf = (snapshot: Snapshot) => snapshot.keys.map((key) => key.id).sort();

const admin = (server: TestServer, action: string, body?: object) =>
  keyringAdmin(server, ADMIN_TOKEN, action, body);

const snapshot = async (server: TestServer) => (await admin(server, 'keyring')).body as Snapshot;

/** A flow begun on `from` completes on `to`. */
async function crossFlow(from: TestServer, to: TestServer): Promise<{ kid: string; text: string }> {
  const { state, text } = await transferAcross(from.url, to.url);
  return { kid: kidOf(state), text };
}

// Each test rotates keys across in-process instances through moto's KMS.
jest.setTimeout(120_000);

let kms: MotoKms;
let wrapper: AwsKmsKeyWrapper;
const savedEnv: Record<string, string | undefined> = {};
beforeAll(async () => {
  kms = await startMotoKms();
  for (const [name, value] of Object.entries({ ...kms.env, MCP_ADMIN_TOKEN: ADMIN_TOKEN })) {
    savedEnv[name] = process.env[name];
    process.env[name] = value;
  }
  wrapper = new AwsKmsKeyWrapper({ kmsKeyId: kms.keyArn, endpoint: 'nestjs-mcp-sample' });
}, 60_000);
afterAll(async () => {
  wrapper?.close();
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await kms?.close();
});

/** Every entry made, by key id. */
const entries = new Map<string, { kms: string }>();
/** A new KMS data key for `id`, as the entry to stage (`{ kms: '<base64>' }`). */
const entryFor = async (id: string) => {
  const entry = await wrapper.generateDataKey(id);
  entries.set(id, entry);
  return entry;
};

describe.each(ADAPTERS)('fleet key rotation through moto KMS over %s', (adapter) => {
  let redis: RedisServerHandle;
  let client: Redis;
  const servers: TestServer[] = [];
  let a: TestServer;
  let b: TestServer;
  const logger = new CapturingLogger();

  /**
   * Starts an instance configured with `keyring`, by default the fleet's active key as it is now
   * (as operators update the configuration new instances start with after a rotation).
   */
  const startInstance = async (name: string, keyring?: string) => {
    if (keyring === undefined) {
      const active = (await snapshot(a)).activeKeyId;
      keyring = JSON.stringify({ active, keys: { [active]: entries.get(active) } });
    }
    const server = await startSampleApp(
      adapter as AdapterName,
      {
        MCP_KEY_SOURCE: 'aws-kms',
        MCP_KMS_KEY_ID: kms.keyArn,
        MCP_KEYRING: keyring,
        MCP_STORE: 'redis',
        REDIS_URL: redis.url,
        MCP_INSTANCE_NAME: `${adapter}-${name}`,
      },
      { logger },
    );
    servers.push(server);
    return server;
  };

  beforeAll(async () => {
    redis = await startRedisServer();
    client = new Redis(redis.url);
    const initial = JSON.stringify({ active: 'k1', keys: { k1: await entryFor('k1') } });
    a = await startInstance('a', initial);
    b = await startInstance('b', initial);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await closeRedisClient(client);
    await redis?.close();
  });

  it('stages, activates and removes keys named like object built-ins on every instance', async () => {
    for (const id of BUILT_IN_IDS) {
      const staged = await admin(a, 'stage', { id, ...(await entryFor(id)) });
      expect(staged.status).toBe(200);
      expect((staged.body as Snapshot).fleet?.agree).toBe(true);
      for (const server of [a, b]) expect(idsOf(await snapshot(server))).toContain(id);
    }
    const activated = await admin(b, 'activate', { id: 'constructor' });
    expect(activated.status).toBe(200);
    expect(await crossFlow(a, b)).toEqual({ kid: 'constructor', text: DONE });
    expect(await crossFlow(b, a)).toEqual({ kid: 'constructor', text: DONE });
    expect((await admin(a, 'activate', { id: 'k1' })).status).toBe(200);
    for (const id of BUILT_IN_IDS) {
      const removed = await admin(b, 'remove', { id });
      expect(removed.status).toBe(200);
      expect((removed.body as Snapshot).fleet?.agree).toBe(true);
    }
    for (const server of [a, b]) expect(idsOf(await snapshot(server))).toEqual(['k1']);
  });

  it('answers the removal of a key no keyring holds as a single instance does: 400, not in the keyring', async () => {
    const single = await startSampleApp(adapter as AdapterName, {
      MCP_KEYRING: newKeyring(['k1']).json,
    });
    try {
      const alone = await admin(single, 'remove', { id: 'never-staged' });
      const fleet = await admin(a, 'remove', { id: 'never-staged' });
      expect(alone.status).toBe(400);
      expect(alone.body).toEqual({
        statusCode: 400,
        message: 'Key "never-staged" is not in the keyring',
      });
      expect({ status: fleet.status, body: fleet.body }).toEqual({
        status: alone.status,
        body: alone.body,
      });
    } finally {
      await single.close();
    }
    // A key removed once is in no keyring either.
    expect((await admin(a, 'stage', { id: 'k-once', ...(await entryFor('k-once')) })).status).toBe(
      200,
    );
    expect((await admin(a, 'remove', { id: 'k-once' })).status).toBe(200);
    expect((await admin(b, 'remove', { id: 'k-once' })).body).toEqual({
      statusCode: 400,
      message: 'Key "k-once" is not in the keyring',
    });
  });

  it('linearizes activate racing remove of the same key across instances: one wins, the other is refused, the fleet agrees', async () => {
    let active = (await snapshot(a)).activeKeyId;
    const wins = { activate: 0, remove: 0 };
    for (let run = 0; run < 12; run++) {
      const id = `race-${run}`;
      expect((await admin(a, 'stage', { id, ...(await entryFor(id)) })).status).toBe(200);
      // Either call may go first by a few milliseconds, so both orders of the race are run.
      const lead = LEADS_MS[run % LEADS_MS.length];
      const [activated, removed] = await Promise.all([
        sleep(Math.max(0, lead)).then(() => admin(a, 'activate', { id })),
        sleep(Math.max(0, -lead)).then(() => admin(b, 'remove', { id })),
      ]);
      // Exactly one of the two changes is applied; the other is refused with a KeyringError.
      expect([activated.status, removed.status].sort()).toEqual([200, 400]);
      const winner = activated.status === 200 ? 'activate' : 'remove';
      wins[winner]++;
      const refused = winner === 'activate' ? removed : activated;
      expect((refused.body as { message: string }).message).toMatch(
        winner === 'activate'
          ? `Key "${id}" is the fleet's active key; activate another key first`
          : new RegExp(
              `^Key "${id}" (was removed from the fleet's keyring while it was being activated; stage it again to activate it|is not staged)$`,
            ),
      );
      const expected = winner === 'activate' ? id : active;
      const agreed = await until(
        async () => {
          const [onA, onB] = [await snapshot(a), await snapshot(b)];
          return onA.fleet?.agree && onA.activeKeyId === onB.activeKeyId ? [onA, onB] : undefined;
        },
        { what: 'the fleet to agree', timeoutMs: 15_000 },
      );
      expect(agreed.map((each) => each.activeKeyId)).toEqual([expected, expected]);
      if (winner === 'remove') for (const each of agreed) expect(idsOf(each)).not.toContain(id);
      // State sealed on one instance opens on the other, both ways.
      expect(await crossFlow(a, b)).toEqual({ kid: expected, text: DONE });
      expect(await crossFlow(b, a)).toEqual({ kid: expected, text: DONE });
      if (winner === 'activate') {
        expect((await admin(b, 'remove', { id: active })).status).toBe(200);
        active = id;
      }
    }
    // Every admin call still answers: the record stays one every instance can verify.
    expect(
      (await admin(b, 'stage', { id: 'after-races', ...(await entryFor('after-races')) })).status,
    ).toBe(200);
    expect((await admin(b, 'remove', { id: 'after-races' })).status).toBe(200);
    console.log(`${adapter}: 12 activate/remove races: ${JSON.stringify(wins)}`);
  });

  it('refuses a replayed fleet record: a removed key stays removed on every instance, and on one that starts after', async () => {
    expect((await admin(a, 'stage', { id: 'k-gone', ...(await entryFor('k-gone')) })).status).toBe(
      200,
    );
    const recordAfterStage = (await client.get(RECORD)) as string;
    const copyAfterStage = (await client.get(HIGH_WATER)) as string;
    expect((await admin(b, 'remove', { id: 'k-gone' })).status).toBe(200);
    const recordAfterRemove = await client.get(RECORD);

    // The red team's replay: the authentic record saved after the stage, written straight back.
    await client.set(RECORD, recordAfterStage);
    // Every instance reads the fleet's keyring again (its heartbeat), refuses the older record
    // and writes the newer one back.
    await until(async () => (await client.get(RECORD)) !== recordAfterStage, {
      what: 'the newer record to be written back',
      timeoutMs: 15_000,
    });
    expect(await client.get(RECORD)).toBe(recordAfterRemove);
    const fresh = await startInstance('fresh-after-replay');
    for (const server of [a, b, fresh])
      expect(idsOf(await snapshot(server))).not.toContain('k-gone');

    // Both keys replayed (an older backup of the two): the live instances remember the newer
    // keyring, and an instance that starts meanwhile takes its floor from their reports.
    await client.set(RECORD, recordAfterStage);
    await client.set(HIGH_WATER, copyAfterStage);
    const another = await startInstance('fresh-after-both');
    expect(idsOf(await snapshot(another))).not.toContain('k-gone');
    await until(async () => (await client.get(RECORD)) !== recordAfterStage, {
      what: 'the newer record to be written back',
      timeoutMs: 15_000,
    });
    for (const server of [a, b, fresh, another])
      expect(idsOf(await snapshot(server))).not.toContain('k-gone');
    const view = await until(
      async () => {
        const current = await snapshot(a);
        return current.fleet?.agree && current.fleet.instances.length === 4 ? current : undefined;
      },
      { what: 'four instances to agree', timeoutMs: 15_000 },
    );
    for (const instance of view.fleet?.instances ?? [])
      expect(instance.keyIds).not.toContain('k-gone');
    expect(logger.text()).toContain('written back from before');
  });
});
