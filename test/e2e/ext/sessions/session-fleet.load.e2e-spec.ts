import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { newKeyring } from '../../../fixtures/sample-app';
import { ADAPTERS } from '../../../utils/bootstrap';
import { rawToolCall } from '../../../utils/mcp';
import { startRedisServer, type RedisServerHandle } from '../../../utils/redis-server';
import { startRedisCluster } from '../../../utils/redis-cluster';
import {
  ensureSampleBuilt,
  startSampleProcess,
  type SampleProcess,
} from '../../../utils/sample-process';
import {
  connectV1,
  connectV2Legacy,
  SampleUser,
  sessionPost,
  textOf,
} from '../../../utils/session-clients';
import { until } from '../../../utils/wait';

const ADMIN_TOKEN = 'session-fleet-admin-token';
const ALICE = { Authorization: 'Bearer alice' };

/** One request the proxy passed on: where to, and what it was. */
interface Routed {
  upstream: number;
  httpMethod: string;
  /** The JSON-RPC method, `answer` for a response the client posted, `-` for no body. */
  rpc: string;
}

/**
 * A load balancer as unkind as they come: requests go round-robin over the instances, and every
 * answer a client posts to a server-to-client request goes to an instance other than the one that
 * took the request before it — so an answer never reaches the instance waiting for it directly. An
 * instance that refuses connections is skipped.
 */
class RoundRobinProxy {
  readonly routed: Routed[] = [];
  private next = 0;
  private readonly server: Server;
  private readonly down = new Set<number>();

  constructor(private readonly upstreams: URL[]) {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => this.forward(req, Buffer.concat(chunks), res));
    });
  }

  async listen(): Promise<URL> {
    await new Promise<void>((done) => this.server.listen(0, '127.0.0.1', done));
    const { port } = this.server.address() as AddressInfo;
    return new URL(this.upstreams[0].pathname, `http://127.0.0.1:${port}`);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((done) => this.server.close(() => done()));
  }

  /** The instance each JSON-RPC method went to, in order. */
  where(rpc: string): number[] {
    return this.routed.filter((each) => each.rpc === rpc).map((each) => each.upstream);
  }

  private pick(rpc: string): number {
    const alive = this.upstreams.map((_, index) => index).filter((index) => !this.down.has(index));
    const last = this.routed[this.routed.length - 1]?.upstream;
    if (rpc === 'answer' && alive.length > 1)
      return alive.find((index) => index !== last) as number;
    return alive[this.next++ % alive.length];
  }

  private forward(req: IncomingMessage, body: Buffer, res: import('node:http').ServerResponse) {
    const rpc = rpcOf(body);
    const upstream = this.pick(rpc);
    // Recorded as it is routed, in the same turn as the pick that read the entry before it: a
    // response arriving meanwhile for another request cannot come between them.
    const routed = { upstream, httpMethod: req.method ?? '', rpc };
    this.routed.push(routed);
    const target = this.upstreams[upstream];
    const outgoing = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: target.host },
      },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        upstreamRes.pipe(res);
        // The instance died mid-stream: the client sees its stream cut, as behind a real balancer.
        upstreamRes.once('aborted', () => res.destroy());
        upstreamRes.once('error', () => res.destroy());
      },
    );
    outgoing.once('error', () => {
      if (res.headersSent) return res.destroy();
      // Never reached the instance: not routed there.
      this.routed.splice(this.routed.indexOf(routed), 1);
      this.down.add(upstream);
      if (this.down.size < this.upstreams.length) return this.forward(req, body, res);
      res.writeHead(502).end();
    });
    res.once('close', () => outgoing.destroy());
    outgoing.end(body);
  }
}

function rpcOf(body: Buffer): string {
  if (body.length === 0) return '-';
  try {
    const message = JSON.parse(body.toString('utf8')) as { method?: unknown };
    return typeof message.method === 'string' ? message.method : 'answer';
  } catch {
    return '?';
  }
}

/**
 * Two sample instances on one Redis (`MCP_STORE=redis`) behind {@link RoundRobinProxy}: 2025-era
 * sessions, their answers and their notifications work whichever instance a request lands on.
 */
/** Where the fleet keeps its sessions: one Redis, or a three-master cluster (hash-tagged keys). */
const TOPOLOGIES = {
  'one Redis': async () => {
    const redis: RedisServerHandle = await startRedisServer();
    return { env: { REDIS_URL: redis.url }, close: () => redis.close() };
  },
  'a Redis Cluster': async () => {
    const cluster = await startRedisCluster();
    return { env: { REDIS_CLUSTER_NODES: cluster.nodes.join(',') }, close: () => cluster.close() };
  },
};
const CASES = [
  ...ADAPTERS.map((adapter) => [adapter, 'one Redis'] as const),
  [ADAPTERS[0], 'a Redis Cluster'] as const,
];

describe.each(CASES)('2025-era sessions on a fleet of two over %s on %s', (adapter, topology) => {
  let redis: { close(): Promise<void> };
  let instances: SampleProcess[] = [];
  let proxy: RoundRobinProxy;
  let url: URL;

  beforeAll(async () => {
    const store = await TOPOLOGIES[topology]();
    redis = store;
    await ensureSampleBuilt();
    const env = {
      MCP_ADMIN_TOKEN: ADMIN_TOKEN,
      MCP_KEYRING: newKeyring(['k1']).json,
      MCP_STORE: 'redis',
      ...store.env,
    };
    instances = [await startSampleProcess(adapter, env), await startSampleProcess(adapter, env)];
    proxy = new RoundRobinProxy(instances.map((instance) => instance.url));
    url = await proxy.listen();
  }, 120_000);

  afterAll(async () => {
    await proxy?.close();
    await Promise.all(instances.map((instance) => instance.stop().catch(() => undefined)));
    await redis?.close();
  });

  it('completes transfer_funds, collect_rounds and onboard_user with every answer posted to the other instance', async () => {
    const user = new SampleUser();
    const client = await connectV2Legacy(url, user, ALICE);
    try {
      const texts = [];
      texts.push(
        textOf(
          await client.callTool({
            name: 'transfer_funds',
            arguments: { amount: '12.50', to: 'bob' },
          }),
        ),
      );
      texts.push(
        textOf(await client.callTool({ name: 'collect_rounds', arguments: { rounds: 3 } })),
      );
      texts.push(textOf(await client.callTool({ name: 'onboard_user', arguments: {} })));
      expect(texts).toEqual([
        'Transferred 12.50 to bob',
        'v1,v2,v3',
        'Welcome, Ada! You are on the team plan.',
      ]);
    } finally {
      await client.close();
    }
    // Both instances served the session, and each of the six answers went to the instance that
    // did not take the request before it.
    expect(new Set(proxy.where('tools/call'))).toEqual(new Set([0, 1]));
    const answers = proxy.routed
      .map((each, index) => ({ each, before: proxy.routed[index - 1] }))
      .filter(({ each }) => each.rpc === 'answer');
    expect(answers).toHaveLength(6);
    for (const { each, before } of answers) expect(each.upstream).not.toBe(before.upstream);
  });

  it("delivers a list change made on one instance to the session's GET stream on the other", async () => {
    const user = new SampleUser();
    const client = await connectV1(url, user, ALICE);
    try {
      let changes = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        changes++;
      });
      // The client opens its GET stream after initialize; find the instance holding it.
      await until(() => proxy.routed.some((each) => each.httpMethod === 'GET'), {
        what: 'the GET stream to open',
      });
      const streamOn = proxy.routed.filter((each) => each.httpMethod === 'GET').pop()
        ?.upstream as number;
      // The change is made on the other instance, directly.
      const other = instances[1 - streamOn];
      expect(
        textOf((await rawToolCall(other.url, 'test_trigger_tool_change', {})).body.result),
      ).toBe('Mutation triggered');
      await until(() => changes > 0, { what: 'the tools/list_changed notification' });
      expect(changes).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('answers an unknown session with 404 whichever instance the request lands on', async () => {
    for (const id of [1, 2]) {
      const response = await sessionPost(url, { id, method: 'tools/list' }, 'no-such-session');
      expect({ status: response.status, messages: response.messages }).toEqual({
        status: 404,
        messages: [{ jsonrpc: '2.0', id, error: { code: -32001, message: 'Session not found' } }],
      });
    }
  });

  // Last: it kills an instance.
  it('ends a flow whose instance is killed mid-elicitation with -32014, and the other instance serves new sessions', async () => {
    let victim: number | undefined;
    const client = await connectV2Legacy(url, new SampleUser(), ALICE);
    // The user answers only once the instance running the call (the one that took the last
    // tools/call) is dead: the answer lands on the survivor, which has no call waiting for it.
    client.setRequestHandler('elicitation/create', async () => {
      victim = proxy.where('tools/call').pop() as number;
      await instances[victim].kill();
      return { action: 'accept', content: { approve: true } };
    });
    let outcome: PromiseSettledResult<unknown>[];
    try {
      outcome = await Promise.allSettled([
        client.callTool({ name: 'transfer_funds', arguments: { amount: '5.00', to: 'carol' } }),
      ]);
    } finally {
      await client.close();
    }
    expect(victim).toBeDefined();
    const [call] = outcome;
    expect(call.status).toBe('rejected');
    expect((call as PromiseRejectedResult).reason).toMatchObject({
      code: -32014,
      message: expect.stringContaining('The stream of this request was lost'),
    });

    const survivor = new SampleUser();
    const fresh = await connectV1(url, survivor, ALICE);
    try {
      expect(
        textOf(
          await fresh.callTool({
            name: 'transfer_funds',
            arguments: { amount: '6.00', to: 'dave' },
          }),
        ),
      ).toBe('Transferred 6.00 to dave');
    } finally {
      await fresh.close();
    }
  }, 60_000);
});
