import { Injectable, Module } from '@nestjs/common';
import { Redis } from 'ioredis';
import { McpModule, McpTool, type McpModuleOptions } from '../../../src/index';
import { HandlerRuns, HandlerRunsModule } from '../../fixtures/handler-runs';
import { newKeyring } from '../../fixtures/sample-app';
import { ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import { rawRound, rawToolCall, type RawRoundResponse } from '../../utils/mcp';
import { startRedisCluster, type RedisClusterHandle } from '../../utils/redis-cluster';
import {
  closeRedisClient,
  startRedisServer,
  type RedisServerHandle,
} from '../../utils/redis-server';
import { initializeRaw, sessionPost, type SessionResponse } from '../../utils/session-clients';
import { sleep, until } from '../../utils/wait';
import {
  HEADER_PARTITIONS,
  StateHandleFixturesModule,
} from '../request-state/state-handles.fixtures';
import {
  askToDelete,
  confirmDelete,
  OneTimeStateFixturesModule,
} from '../request-state/one-time-state.fixtures';
import { APPROVE } from '../../utils/sample-calls';

/*
 * Redis stopped (SIGKILL), paused (SIGSTOP: every command times out), made read-only (a replica,
 * as after a failover: READONLY), out of memory (OOM) and, on a cluster, refusing (CLUSTERDOWN),
 * each in turn under concurrent load of every feature that needs it — single-use rounds, state
 * handles (saved, redeemed), tasks (created, read) and 2025-era sessions (initialize, a request on
 * a session): every failed request answers the retryable -32000 with data.retryAfterMs and the
 * documented status (200 on the call's own answer, 503 with Retry-After before a session request
 * runs), none answers -32603, no handler runs for a refused call, and once Redis is back every
 * feature works again without restarting the app.
 */

const COMMAND_TIMEOUT_MS = 300;
const WORKERS = 6;
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const FORM = { elicitation: { form: {} } };
const BUSY = new Set([
  'Server busy: the store is unavailable',
  'Server busy: the task runner is unavailable',
]);
/** Kinds that need Redis to write (a read-only or full Redis still serves the others). */
const WRITING: readonly Kind[] = ['single-use', 'handle-save', 'task-create', 'session-initialize'];
/** Kinds that need Redis at all (a stopped, paused or refusing Redis fails each of them). */
const ALL: readonly Kind[] = [...WRITING, 'session-request'];
/** Features whose requests need Redis, each answered on its own. */
const KINDS = [
  'single-use',
  'handle-save',
  'handle-redeem',
  'task-create',
  'task-get',
  'session-initialize',
  'session-request',
] as const;
type Kind = (typeof KINDS)[number];

@Injectable()
class QuickTask {
  constructor(private readonly runs: HandlerRuns) {}

  @McpTool({ description: 'Counts its runs, as a task', taskSupport: 'required' })
  count_task(): string {
    this.runs.hit('count_task:ran');
    return 'counted';
  }
}

@Module({ imports: [HandlerRunsModule], providers: [QuickTask] })
class QuickTaskModule {}

/** One answer the load got: what it was, when its request started, and how it went. */
interface Answer {
  readonly kind: Kind;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly error: { code: number; message: string; data?: { retryAfterMs?: unknown } } | undefined;
}

/** Calls of every kind, by `WORKERS` callers at once, recording each answer, until stopped. */
class Load {
  readonly answers: Answer[] = [];
  /** Successful runs the handlers must match: confirmed single-use rounds, approvals, tasks. */
  confirmed = 0;
  approved = 0;
  created = 0;
  private running = false;
  private workers: Promise<void>[] = [];

  constructor(private readonly server: () => TestServer) {}

  start(): void {
    this.running = true;
    this.workers = Array.from({ length: WORKERS }, (_, index) => this.work(`caller-${index}`));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
  }

  /** The answers of `kind` since `mark` (an index into `answers`). */
  since(mark: number, kind?: Kind): Answer[] {
    return this.answers.slice(mark).filter((answer) => kind === undefined || answer.kind === kind);
  }

  private async work(user: string): Promise<void> {
    const headers = { 'x-user': user };
    let sessionId: string | undefined;
    while (this.running) {
      const url = this.server().url;
      // Single use: round 1 needs no store; the confirming round consumes the state.
      const state = await askToDelete(this.server(), 'once_delete');
      if (await this.record('single-use', () => confirmDelete(this.server(), 'once_delete', state)))
        this.confirmed++;
      // A state handle: saved on round 1, redeemed on round 2.
      const saved = await this.call('handle-save', () =>
        rawToolCall(url, 'handle_approve', { amount: '1.00' }, { headers, capabilities: FORM }),
      );
      if (saved) {
        const redeeming = () =>
          rawToolCall(
            url,
            'handle_approve',
            { amount: '1.00' },
            {
              headers,
              requestState: saved.body.result?.requestState,
              inputResponses: APPROVE,
            },
          );
        if (await this.record('handle-redeem', redeeming)) this.approved++;
      }
      // A task: created (its step runs in this process), then read.
      const created = await this.call('task-create', () =>
        rawRound(
          url,
          'tools/call',
          { name: 'count_task', arguments: {} },
          {
            capabilities: TASKS,
            headers,
          },
        ),
      );
      if (created) {
        this.created++;
        const taskId = (created.body.result as { taskId: string }).taskId;
        await this.record('task-get', () =>
          rawRound(url, 'tasks/get', { taskId }, { capabilities: TASKS, headers }),
        );
      }
      // A 2025-era session: one opened each turn; a request on a session opened before.
      const opened = await this.session('session-initialize', () => initializeRaw(url, headers));
      if (sessionId !== undefined) {
        const id = sessionId;
        const listed = await this.session('session-request', () =>
          sessionPost(url, { id: 1, method: 'tools/list' }, id, headers),
        );
        // A session lost with Redis's data (a restart, a resync) is replaced below.
        if (!listed) sessionId = undefined;
      }
      sessionId ??= opened?.sessionId;
    }
  }

  /** Sends a 2026-07-28 request and records its answer; whether it succeeded. */
  private async record(kind: Kind, send: () => Promise<RawRoundResponse>): Promise<boolean> {
    return (await this.call(kind, send)) !== undefined;
  }

  /** Sends a 2026-07-28 request and records its answer; the response when it succeeded. */
  private call(
    kind: Kind,
    send: () => Promise<RawRoundResponse>,
  ): Promise<RawRoundResponse | undefined> {
    return this.answered(kind, send, (response) => ({
      error: response.body.error,
      succeeded: response.body.error === undefined && response.body.result !== undefined,
    }));
  }

  /** Sends a 2025-era request and records its answer; the response when it succeeded. */
  private session(
    kind: Kind,
    send: () => Promise<SessionResponse>,
  ): Promise<SessionResponse | undefined> {
    return this.answered(kind, send, (response) => {
      const message = response.messages.find((each) => each.id !== undefined);
      return {
        error: message?.error,
        succeeded: response.status === 200 && message?.error === undefined,
      };
    });
  }

  /** Sends a request and records its answer, its error as `read` finds it; the response when it succeeded. */
  private async answered<R extends { status: number; headers: Record<string, string> }>(
    kind: Kind,
    send: () => Promise<R>,
    read: (response: R) => { error: unknown; succeeded: boolean },
  ): Promise<R | undefined> {
    const startedAt = Date.now();
    const response = await send();
    const { error, succeeded } = read(response);
    this.answers.push({
      kind,
      startedAt,
      endedAt: Date.now(),
      status: response.status,
      retryAfter: response.headers['retry-after'],
      error: error as Answer['error'],
    });
    return succeeded ? response : undefined;
  }
}

/** What one outage must and must not show, checked on the answers since `mark`. */
function expectAnsweredAsOutages(load: Load, mark: number, healedAt: number, dataLost: boolean) {
  const answers = load.since(mark);
  const failed = answers.filter((answer) => answer.error !== undefined || answer.status >= 400);
  // None is a bug: no -32603, not once.
  expect(answers.filter((answer) => answer.error?.code === -32603)).toEqual([]);
  for (const answer of failed) {
    // What Redis lost with its data (a restart, a resync) is gone once it answers again: a new
    // session or flow, as docs/redis.md says. Anything else that failed is the retryable busy
    // answer.
    if (dataLost && answer.endedAt >= healedAt && lostWithData(answer)) continue;
    // The whole answer on a mismatch, so a failure says what was answered.
    expect({ ...answer, code: answer.error?.code }).toEqual({ ...answer, code: -32000 });
    expect(BUSY.has(answer.error?.message ?? '')).toBe(true);
    expect(answer.error?.data?.retryAfterMs).toEqual(expect.any(Number));
    expect(answer.error?.data?.retryAfterMs as number).toBeGreaterThan(0);
    if (answer.kind === 'session-initialize' || answer.kind === 'session-request') {
      // Before a session request runs: 503 with Retry-After, as initialize past maxSessions.
      expect(answer.status).toBe(503);
      expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    } else expect(answer.status).toBe(200);
  }
  return failed;
}

function lostWithData(answer: Answer): boolean {
  if (answer.kind === 'session-request') return answer.status === 404;
  return (
    (answer.kind === 'handle-redeem' || answer.kind === 'task-get') && answer.error?.code === -32602
  );
}

/**
 * Runs the load, breaks Redis with `outage`, waits until every kind has been answered busy at
 * least twice, heals it, and waits until every kind succeeds again; checks the answers and that
 * no handler ran for a refused call.
 */
async function underLoad(
  load: Load,
  server: TestServer,
  outage: {
    break(): Promise<void>;
    heal(): Promise<void>;
    /** Whether Redis comes back without what it held (a restart, a resync). */
    dataLost: boolean;
    /** The kinds Redis refuses meanwhile: all, or those that write when it still serves reads. */
    refuses: readonly Kind[];
  },
): Promise<void> {
  const runs = server.app.get(HandlerRuns);
  const before = {
    deleted: runs.count('once_delete:deleted'),
    approved: runs.count('handle_approve:approved'),
    tasks: runs.count('count_task:ran'),
    confirmed: load.confirmed,
    approvals: load.approved,
    created: load.created,
  };
  const mark = load.answers.length;
  load.start();
  try {
    await until(() => KINDS.every((kind) => succeeded(load.since(mark, kind))), {
      what: 'every kind to succeed before the outage',
      timeoutMs: 20_000,
    }).catch((error) => {
      console.log(JSON.stringify(KINDS.map((kind) => [kind, load.since(mark, kind).slice(0, 2)])));
      throw error;
    });
    const broken = load.answers.length;
    let healedAt: number;
    let healing: number;
    await outage.break();
    try {
      await until(
        () => outage.refuses.every((kind) => load.since(broken, kind).filter(busy).length >= 2),
        { what: 'each kind that needs writes to be answered busy', timeoutMs: 30_000 },
      ).catch((error) => {
        console.log(
          JSON.stringify(outage.refuses.map((kind) => [kind, load.since(broken, kind).slice(-2)])),
        );
        throw error;
      });
    } finally {
      healedAt = Date.now();
      healing = load.answers.length;
      await outage.heal();
    }
    // Recovery without a restart: every kind succeeds again.
    await until(() => KINDS.every((kind) => succeeded(load.since(healing, kind))), {
      what: 'every kind to succeed again after the outage',
      timeoutMs: 30_000,
      everyMs: 100,
    });
    await load.stop();
    const failed = expectAnsweredAsOutages(load, mark, healedAt, outage.dataLost);
    expect(failed.length).toBeGreaterThan(0);
    // For the record (docs/errors.md): what the load was answered, by kind.
    const all = load.since(mark);
    console.log(
      `${expect.getState().currentTestName}: ${all.length} answers, ${all.filter(busy).length} busy (-32000), ` +
        `${all.filter((answer) => answer.error?.code === -32603).length} -32603; busy by kind: ` +
        KINDS.map((kind) => `${kind} ${load.since(mark, kind).filter(busy).length}`).join(', '),
    );
  } finally {
    await load.stop();
  }
  // No handler ran for a refused call: every run is one the load was answered with.
  expect(runs.count('once_delete:deleted') - before.deleted).toBe(
    load.confirmed - before.confirmed,
  );
  expect(runs.count('handle_approve:approved') - before.approved).toBe(
    load.approved - before.approvals,
  );
  expect(runs.count('count_task:ran') - before.tasks).toBeLessThanOrEqual(
    load.created - before.created,
  );
}

const busy = (answer: Answer) => answer.error?.code === -32000;
const succeeded = (answers: Answer[]) =>
  answers.some((answer) => answer.error === undefined && answer.status === 200);

function app(redis: McpModuleOptions['redis']) {
  const keyring = newKeyring(['k1']);
  return {
    imports: [
      McpModule.forRoot({
        keyring: { active: keyring.active, keys: keyring.keys },
        redis,
        identity: { partitionResolver: HEADER_PARTITIONS },
        requestState: { maxStateHandlesPerCaller: 100_000, maxStateHandles: 1_000_000 },
        tasks: { maxTasksPerCaller: 100_000, maxTasks: 1_000_000 },
        sessions: { maxSessionsPerCaller: 100_000, maxSessions: 1_000_000 },
      }),
      OneTimeStateFixturesModule,
      StateHandleFixturesModule,
      QuickTaskModule,
    ],
  };
}

describe.each(ADAPTERS)('Redis outages under load, one Redis, over %s', (adapter) => {
  let redis: RedisServerHandle;
  /** What Redis follows when it is made a replica (read-only), as after a failover. */
  let primary: RedisServerHandle;
  let admin: Redis;
  let server: TestServer;
  let load: Load;

  beforeAll(async () => {
    redis = await startRedisServer();
    primary = await startRedisServer();
    admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    admin.on('error', () => undefined);
    server = await startTestServer(
      adapter,
      app({ url: redis.url, commandTimeoutMs: COMMAND_TIMEOUT_MS }),
    );
    load = new Load(() => server);
  });

  afterAll(async () => {
    await load?.stop();
    await server?.close();
    await closeRedisClient(admin);
    await redis?.close();
    await primary?.close();
  });

  it('stopped (SIGKILL), then started again empty', async () => {
    await underLoad(load, server, {
      break: () => redis.stop('SIGKILL'),
      heal: () => redis.start(),
      dataLost: true,
      refuses: ALL,
    });
  });

  it('paused (SIGSTOP): every command times out; resumed, what waited changes nothing', async () => {
    await underLoad(load, server, {
      break: async () => redis.signal('SIGSTOP'),
      heal: async () => redis.signal('SIGCONT'),
      dataLost: false,
      refuses: ALL,
    });
  });

  it('made a replica, as after a failover (READONLY), then a master again', async () => {
    await underLoad(load, server, {
      break: async () => {
        await admin.call('REPLICAOF', '127.0.0.1', String(primary.port));
      },
      heal: async () => {
        await admin.call('REPLICAOF', 'NO', 'ONE');
      },
      dataLost: true,
      refuses: WRITING,
    });
  });

  it('out of memory (maxmemory 1, noeviction: OOM), then given memory again', async () => {
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    await underLoad(load, server, {
      break: async () => {
        await admin.config('SET', 'maxmemory', '1');
      },
      heal: async () => {
        await admin.config('SET', 'maxmemory', '0');
      },
      dataLost: false,
      // Redis refuses a script out of memory only at its first write, when that write may grow
      // memory: the single-use claim's is its SET. The handle, task and session scripts prune
      // their indexes first, and Redis lets a script that has written finish (docs/redis.md).
      refuses: ['single-use'],
    });
  });
});

describe.each(ADAPTERS)('Redis outages under load, a cluster, over %s', (adapter) => {
  let cluster: RedisClusterHandle;
  let server: TestServer;
  let load: Load;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    server = await startTestServer(
      adapter,
      app({ cluster: { nodes: cluster.nodes }, commandTimeoutMs: COMMAND_TIMEOUT_MS }),
    );
    load = new Load(() => server);
  }, 60_000);

  afterAll(async () => {
    await load?.stop();
    await server?.close();
    await cluster?.close();
  });

  it('a master that holds none of the module keys stops: the cluster refuses (CLUSTERDOWN) until it is back', async () => {
    const probe = cluster.client();
    const slot = Number(await probe.call('CLUSTER', 'KEYSLOT', '{nestjs-mcp}'));
    const owners = (await probe.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
    const owner = owners.find(([from, to]) => slot >= from && slot <= to)?.[2][1];
    const bystander = cluster.masters.find((master) => master.port !== owner) as RedisServerHandle;
    await underLoad(load, server, {
      break: async () => {
        await bystander.stop('SIGKILL');
        // With cluster-require-full-coverage (the default) the cluster stops serving every slot
        // once the others mark the node failed (cluster-node-timeout, 2 s here).
        await until(
          async () =>
            String(await probe.call('CLUSTER', 'INFO').catch(() => '')).includes(
              'cluster_state:fail',
            ),
          { what: 'the cluster to fail', timeoutMs: 20_000, everyMs: 100 },
        );
      },
      heal: async () => {
        await bystander.start();
        await sleep(100);
      },
      dataLost: false,
      refuses: ALL,
    });
  }, 120_000);
});
