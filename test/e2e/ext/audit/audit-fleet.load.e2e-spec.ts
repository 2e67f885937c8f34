import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../../../src/ext/audit/verify/audit-cli';
import { Module } from '@nestjs/common';
import Redis, { type Cluster } from 'ioredis';
import { McpModule } from '../../../../src/index';
import { PemAuditSigner, verifyAuditTrail } from '../../../../src/entry/audit';
import { newKeyring } from '../../../fixtures/sample-app';
import {
  AuditSideEffects,
  AuditTools,
  type AuditJson,
  tokenUserPartition,
} from '../../../fixtures/audit/audit-tools';
import { startTestServer, type AdapterName, type TestServer } from '../../../utils/bootstrap';
import { rawToolCall, resultText, stateOf } from '../../../utils/mcp';
import { startRedisCluster } from '../../../utils/redis-cluster';
import { closeRedisClient, startRedisServer } from '../../../utils/redis-server';
import { forSuite } from '../../../utils/suite-resource';

/*
 * A fleet's trail in one Redis stream (then on a Redis Cluster): two instances, flows that cross
 * them, 1,000 concurrent calls over both — no record lost, no link broken, every checkpoint
 * verifies with the public key alone, and a record deleted from the stream is found. Strict with
 * Redis stopped: calls are refused before they run, with -32000 and retryAfterMs.
 */

const FORM = { elicitation: { form: {} } };
const ALICE = { authorization: 'Bearer tok-alice-7d0c1e4b9a' };
const adapter: AdapterName = 'express';
const keyring = newKeyring(['k1']);
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();

type RedisOption = { url: string } | { cluster: { nodes: string[] } };

async function instance(
  redis: RedisOption,
  effects: AuditSideEffects,
  policy: 'strict' | 'best-effort' = 'best-effort',
): Promise<TestServer> {
  @Module({
    imports: [
      McpModule.forRoot({
        keyring: { active: keyring.active, keys: { ...keyring.keys } },
        identity: { partitionResolver: tokenUserPartition },
        redis: { ...redis, commandTimeoutMs: 500 },
        audit: {
          sink: 'redis',
          policy,
          signer: new PemAuditSigner(privatePem),
          checkpointEvery: 200,
          queueBound: 5_000,
          strictTimeoutMs: 1_000,
        },
      }),
    ],
    providers: [AuditTools, { provide: AuditSideEffects, useValue: effects }],
  })
  class AuditedInstance {}
  return startTestServer(adapter, { imports: [AuditedInstance] });
}

/** A transfer asked on `first` and approved on `second`. */
async function crossingTransfer(first: TestServer, second: TestServer): Promise<string> {
  const args = { amount: 75, to: 'acct-3' };
  const asked = await rawToolCall(first.url, 'transfer', args, {
    capabilities: FORM,
    headers: ALICE,
  });
  const done = await rawToolCall(second.url, 'transfer', args, {
    capabilities: FORM,
    headers: ALICE,
    requestState: stateOf(asked),
    inputResponses: { approval: { action: 'accept', content: { approve: true } } },
  });
  return resultText(done);
}

/** 1,000 plain calls at once, every other one on each instance. */
async function thousandCalls(first: TestServer, second: TestServer): Promise<void> {
  const answers = await Promise.all(
    Array.from({ length: 1_000 }, (_, index) =>
      rawToolCall(index % 2 ? second.url : first.url, 'plain', {}, { headers: ALICE }),
    ),
  );
  expect(answers.filter((answer) => answer.body.result).length).toBe(1_000);
}

type Reader = Redis | Cluster;

async function streamRecords(reader: Reader, stream: string): Promise<[string, AuditJson][]> {
  const entries = (await reader.call('XRANGE', stream, '-', '+')) as [string, string[]][];
  return entries.map(([id, fields]) => [id, JSON.parse(fields[1]) as AuditJson]);
}

function fleetCases(
  name: string,
  setup: () => Promise<{
    /** How `nestjs-mcp-audit verify` reaches the stream. */
    cli: string[];
    option: RedisOption;
    reader: Reader;
    stream: string;
    done(): Promise<void>;
  }>,
) {
  describe(`an audit trail of two instances on ${name}`, () => {
    let first: TestServer;
    let second: TestServer;
    let reader: Reader;
    let stream: string;
    let cli: string[];
    let done: () => Promise<void>;
    const effects = new AuditSideEffects();

    beforeAll(async () => {
      const made = await setup();
      ({ reader, stream, done, cli } = made);
      first = await instance(made.option, effects);
      second = await instance(made.option, effects);
      expect(await crossingTransfer(first, second)).toBe('Moved 75 to acct-3');
      await thousandCalls(first, second);
      await first.close();
      await second.close();
    }, 120_000);
    afterAll(() => done());

    it('loses no record, breaks no link, and verifies end to end with the public key alone', async () => {
      const records = (await streamRecords(reader, stream)).map(([, record]) => record);
      const completed = records.filter(
        (record) => record.event_type === 'mcp.call.completed' && record.tool_name === 'plain',
      );
      expect(completed).toHaveLength(1_000);
      const instances = new Set(records.map((record) => record.extensions['nestjs-mcp'].instance));
      expect(instances.size).toBe(2);
      const transfer = records.filter((record) => record.tool_name === 'transfer');
      const flows = new Set(transfer.map((record) => record.extensions['nestjs-mcp'].flow_id));
      expect(flows.size).toBe(1);
      const crossed = new Set(transfer.map((record) => record.extensions['nestjs-mcp'].instance));
      expect(crossed.size).toBe(2);
      const verdict = await verifyAuditTrail({ redis: reader, stream }, { publicKeyPem });
      expect(verdict).toMatchObject({ ok: true, chains: 2, unsigned: 0 });
      const fleetCheckpoint = records.find(
        (record) =>
          record.event_type === 'audit.checkpoint' &&
          Object.keys(record.extensions['nestjs-mcp'].checkpoint.heads).length === 2,
      );
      expect(fleetCheckpoint).toBeDefined();
    });

    it('is what the command verifies over Redis (--redis, --stream): exit 0', async () => {
      const key = join(tmpdir(), `audit-fleet-${process.pid}.pem`);
      writeFileSync(key, publicKeyPem);
      const out = { text: '', write: (text: string) => (out.text += text) };
      expect(await main(['verify', ...cli, '--stream', stream, '--public-key', key], out)).toBe(0);
      expect(out.text).toContain('OK');
    });

    it('finds a record deleted from the stream', async () => {
      const entries = await streamRecords(reader, stream);
      const [victimId, victim] = entries[Math.floor(entries.length / 2)];
      expect(await reader.call('XDEL', stream, victimId)).toBe(1);
      const verdict = await verifyAuditTrail({ redis: reader, stream }, { publicKeyPem });
      expect(verdict.ok).toBe(false);
      expect(verdict.firstBad?.problem).toBe('missing');
      expect(verdict.firstBad?.message).toContain(victim.extensions['nestjs-mcp'].instance);
    });
  });
}

describe('the audit trail on Redis', () => {
  const redis = forSuite(startRedisServer, (opened) => opened.close());

  fleetCases('one Redis', async () => {
    const reader = new Redis(redis.url);
    return {
      cli: ['--redis', redis.url],
      option: { url: redis.url },
      reader,
      stream: '{nestjs-mcp:audit}',
      done: () => closeRedisClient(reader),
    };
  });

  it('strict, with Redis stopped: calls are refused before they run with -32000 and retryAfterMs', async () => {
    const effects = new AuditSideEffects();
    const server = await instance({ url: redis.url }, effects, 'strict');
    try {
      expect(resultText(await rawToolCall(server.url, 'plain', {}, { headers: ALICE }))).toBe(
        'plain answer',
      );
      const asked = await rawToolCall(
        server.url,
        'transfer',
        { amount: 5, to: 'acct-1' },
        { capabilities: FORM, headers: ALICE },
      );
      await redis.stop();
      const refused = await rawToolCall(server.url, 'plain', {}, { headers: ALICE });
      expect(refused.body.error).toMatchObject({
        code: -32000,
        data: { retryAfterMs: expect.any(Number) },
      });
      // The single-use approval is not consumed by a refusal: it goes through once Redis is back.
      const approval = {
        capabilities: FORM,
        headers: ALICE,
        requestState: stateOf(asked),
        inputResponses: { approval: { action: 'accept', content: { approve: true } } },
      };
      const refusedApproval = await rawToolCall(
        server.url,
        'transfer',
        { amount: 5, to: 'acct-1' },
        approval,
      );
      expect(refusedApproval.body.error).toMatchObject({ code: -32000 });
      expect(effects).toMatchObject({ plain: 1, transfers: 0 });
      await redis.start();
      const served = await retried(() =>
        rawToolCall(server.url, 'transfer', { amount: 5, to: 'acct-1' }, approval),
      );
      expect(resultText(served)).toBe('Moved 5 to acct-1');
      expect(effects).toMatchObject({ plain: 1, transfers: 1 });
    } finally {
      await server.close();
    }
  }, 60_000);
});

/** `call` again while it is refused as busy (the trail recovering), then its answer. */
async function retried(call: () => ReturnType<typeof rawToolCall>): ReturnType<typeof rawToolCall> {
  for (let attempt = 0; ; attempt++) {
    const answer = await call();
    if (answer.body.error?.code !== -32000 || attempt > 40) return answer;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('the audit trail on a Redis Cluster', () => {
  const cluster = forSuite(startRedisCluster, (opened) => opened.close(), { timeoutMs: 60_000 });

  fleetCases('a Redis Cluster', async () => {
    const reader = cluster.client();
    return {
      cli: ['--redis', `redis://${cluster.nodes[0]}`, '--cluster'],
      option: { cluster: { nodes: cluster.nodes } },
      reader,
      stream: '{nestjs-mcp:audit}',
      done: async () => undefined,
    };
  });
});
