/**
 * The fleet curve of `bench/scale.bench.ts`: one instance with the memory stores against two
 * instances sharing one Redis (bench/servers/fleet-app.ts, a private redis-server from
 * test/utils/redis-server.ts), for
 * - single-use flows: round 1 of `transfer` (FRAMEWORK_PROTECTED, `singleUse: true`) on one
 *   instance, round 2 with the approval on the other;
 * - tasks: `park` created as a task on one instance, `tasks/get` on the other until it answers
 *   `completed` with the result (the default in-process runner, as a fleet runs without BullMQ).
 * A flow's two halves go A → B or B → A by turns, so both instances carry the same load. Each pass
 * runs FLEET_CONCURRENCY flows at once in a closed loop for SECONDS; the passes alternate memory,
 * Redis, memory, Redis … after a warm-up pass of each. Measured: flows/s, the servers' CPU per flow
 * (both instances added up on Redis), redis-server's CPU per flow, and the Redis commands per flow
 * from `INFO commandstats` before and after (commands a script runs included); a short sequential
 * sample under `MONITOR` then tells the commands clients send (round trips) from those scripts run.
 */
import { randomBytes } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { Redis } from 'ioredis';
import { startRedisServer } from '../test/utils/redis-server';
import { startRedisCluster, type RedisClusterHandle } from '../test/utils/redis-cluster';

/** What the fleet curve needs from the bench that runs it. */
export interface FleetBench {
  readonly quick: boolean;
  readonly seconds: number;
  readonly rounds: number;
  readonly concurrency: number;
  startServer(env: Record<string, string>): Promise<FleetServer>;
  stopServer(server: FleetServer): Promise<void>;
  /** Server CPU (user + system µs) of each of `servers` while `work` runs. */
  cpuAround<T>(servers: FleetServer[], work: () => Promise<T>): Promise<[T, number]>;
  load(): string;
  section(title: string, loadBefore: string, lines: string[]): void;
  target(name: string, measured: string, met: boolean | undefined): void;
  /** A horizontal ASCII bar chart, as the other curves draw. */
  bars(rows: [string, number][], unit: string): string;
}

export interface FleetServer {
  readonly port: number;
}

type Json = Record<string, unknown>;
type Kind = 'single-use' | 'task';
type Setup = 'memory' | 'memory-pair' | 'redis' | 'redis-autopipeline' | 'cluster' | 'bullmq';

/** BENCH_FLEET_FLOWS picks the kinds of flow (comma-separated: single-use,task; both by default). */
const KINDS = (process.env.BENCH_FLEET_FLOWS ?? 'single-use,task')
  .split(',')
  .map((kind) => kind.trim())
  .filter((kind): kind is Kind => kind === 'single-use' || kind === 'task');
/** What each kind of flow is measured on: single-use states do not touch a task runner. */
const SETUPS: Record<Kind, Setup[]> = {
  // Two instances each with its own memory store: not a fleet (a state is single-use per process
  // only), measured to tell what two processes on these cores cost from what Redis costs.
  'single-use': ['memory', 'memory-pair', 'redis', 'redis-autopipeline', 'cluster'],
  task: ['memory', 'redis', 'cluster', 'bullmq'],
};
const SETUP_LABELS: Record<Setup, string> = {
  memory: 'one instance, memory',
  'memory-pair': 'two instances, memory each (control, not a fleet)',
  redis: 'two instances, Redis',
  'redis-autopipeline': 'two instances, Redis, ioredis auto-pipelining',
  cluster: 'two instances, three-master Redis Cluster',
  bullmq: 'two instances, Redis + BullMQ runner',
};

const PROTOCOL_VERSION = '2026-07-28';
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const FORM = { elicitation: { form: {} } };
const TRANSFER = { amount: '12.50', to: 'bob' };
const APPROVE = { approve: { action: 'accept', content: { approve: true } } };
/** Sequential flows of each kind sampled under MONITOR. */
const MONITORED_FLOWS = 20;
/** The pause before reading a task that is still working again. */
const TASK_POLL_PAUSE_MS = 2;
/** A task not completed after this many reads is a failed flow. */
const MAX_TASK_READS = 1_000;

const agent = new Agent({ keepAlive: true, maxSockets: 256 });
let nextId = 1;

function post(port: number, method: string, name: string, params: Json, caps: Json): Promise<Json> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: nextId++,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientCapabilities': caps,
      },
    },
  });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent,
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'MCP-Protocol-Version': PROTOCOL_VERSION,
          'Mcp-Method': method,
          'Mcp-Name': name,
          'Content-Length': Buffer.byteLength(body),
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          const json = JSON.parse(text) as { result?: Json };
          if (response.statusCode !== 200 || !json.result)
            reject(new Error(`HTTP ${response.statusCode}: ${text.slice(0, 300)}`));
          else resolve(json.result);
        });
        response.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** One single-use flow: round 1 on `first`, the approval on `second`. */
async function singleUseFlow(first: FleetServer, second: FleetServer): Promise<void> {
  const asked = await post(
    first.port,
    'tools/call',
    'transfer',
    { name: 'transfer', arguments: TRANSFER },
    FORM,
  );
  if (asked.resultType !== 'input_required' || typeof asked.requestState !== 'string')
    throw new Error(`round 1: ${JSON.stringify(asked).slice(0, 300)}`);
  const done = await post(
    second.port,
    'tools/call',
    'transfer',
    {
      name: 'transfer',
      arguments: TRANSFER,
      requestState: asked.requestState,
      inputResponses: APPROVE,
    },
    FORM,
  );
  const text = (done.content as { text?: string }[] | undefined)?.[0]?.text;
  if (text !== 'Transferred 12.50 to bob')
    throw new Error(`round 2: ${JSON.stringify(done).slice(0, 300)}`);
}

/** One task flow: created on `first`, read on `second` until it is completed; answers the reads. */
async function taskFlow(first: FleetServer, second: FleetServer): Promise<number> {
  const created = await post(
    first.port,
    'tools/call',
    'park',
    { name: 'park', arguments: {} },
    TASKS,
  );
  const taskId = created.taskId;
  if (typeof taskId !== 'string')
    throw new Error(`create: ${JSON.stringify(created).slice(0, 300)}`);
  for (let reads = 1; reads <= MAX_TASK_READS; reads++) {
    const task = await post(second.port, 'tasks/get', taskId, { taskId }, TASKS);
    if (task.status === 'completed') {
      const text = (
        (task.result as Json | undefined)?.content as { text?: string }[] | undefined
      )?.[0]?.text;
      if (text !== 'parked') throw new Error(`result: ${JSON.stringify(task).slice(0, 300)}`);
      return reads;
    }
    if (task.status !== 'working') throw new Error(`task: ${JSON.stringify(task).slice(0, 300)}`);
    // Not yet: read again soon, not in a hot loop (a client waits `pollIntervalMs`).
    await new Promise((resolve) => setTimeout(resolve, TASK_POLL_PAUSE_MS));
  }
  throw new Error(`task ${taskId} not completed after ${MAX_TASK_READS} reads`);
}

interface FlowPass {
  readonly flows: number;
  readonly failures: number;
  readonly seconds: number;
  /** tasks/get calls made (task flows). */
  readonly reads: number;
  readonly firstError?: string;
}

/** `concurrency` loops of `flow` for `seconds`; flow n runs A → B when n is even, B → A otherwise. */
async function closedLoop(
  kind: Kind,
  pair: [FleetServer, FleetServer],
  seconds: number,
  concurrency: number,
): Promise<FlowPass> {
  let flows = 0;
  let failures = 0;
  let reads = 0;
  let turn = 0;
  let firstError: string | undefined;
  const begin = process.hrtime.bigint();
  const deadline = Date.now() + seconds * 1_000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < deadline) {
        const [first, second] = turn++ % 2 === 0 ? pair : [pair[1], pair[0]];
        try {
          if (kind === 'single-use') await singleUseFlow(first, second);
          else {
            const taskReads = await taskFlow(first, second);
            reads += taskReads;
          }
          flows++;
        } catch (error) {
          failures++;
          firstError ??= String(error);
        }
      }
    }),
  );
  return {
    flows,
    failures,
    reads,
    seconds: Number(process.hrtime.bigint() - begin) / 1e9,
    firstError,
  };
}

/** Redis's calls per command (`INFO commandstats`), summed over `servers` (a cluster's masters). */
async function commandCalls(servers: Redis[]): Promise<Map<string, number>> {
  const calls = new Map<string, number>();
  for (const client of servers)
    for (const match of (await client.info('commandstats')).matchAll(
      /^cmdstat_([^:]+):calls=(\d+)/gm,
    ))
      calls.set(match[1], (calls.get(match[1]) ?? 0) + Number(match[2]));
  return calls;
}

/** redis-server's CPU so far, in µs (`INFO cpu`: the main thread's user + system), summed. */
async function redisCpuUs(servers: Redis[]): Promise<number> {
  let total = 0;
  for (const client of servers) {
    const info = await client.info('cpu');
    const of = (field: string) =>
      Number(new RegExp(`^${field}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
    total += (of('used_cpu_user') + of('used_cpu_sys')) * 1e6;
  }
  return total;
}

interface Measured {
  flows: number;
  failures: number;
  seconds: number;
  serverCpuUs: number;
  redisCpuUs: number;
  reads: number;
  /** Redis calls per command over the measured passes (the bench's own `INFO` taken out). */
  commands: Map<string, number>;
  firstError?: string;
}

const empty = (): Measured => ({
  flows: 0,
  failures: 0,
  seconds: 0,
  serverCpuUs: 0,
  redisCpuUs: 0,
  reads: 0,
  commands: new Map(),
});

/** Commands per flow clients send (`MONITOR`, source not a script) and scripts run, by command. */
async function monitored(
  servers: Redis[],
  kind: Kind,
  pair: [FleetServer, FleetServer],
): Promise<{ sent: Map<string, number>; inScripts: Map<string, number> }> {
  const sent = new Map<string, number>();
  const inScripts = new Map<string, number>();
  const monitors = await Promise.all(servers.map((client) => client.monitor()));
  for (const monitor of monitors)
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      const command = String(args[0]).toLowerCase();
      const counts = source === 'lua' ? inScripts : sent;
      counts.set(command, (counts.get(command) ?? 0) + 1);
    });
  // MONITOR shows what it is sent after it starts; a PING marks the start and the end.
  for (const client of servers) await client.ping();
  for (let flow = 0; flow < MONITORED_FLOWS; flow++) {
    const [first, second] = flow % 2 === 0 ? pair : [pair[1], pair[0]];
    if (kind === 'single-use') await singleUseFlow(first, second);
    else await taskFlow(first, second);
  }
  for (const client of servers) await client.ping();
  await new Promise((resolve) => setTimeout(resolve, 200));
  for (const monitor of monitors) monitor.disconnect();
  sent.set('ping', (sent.get('ping') ?? 0) - 2 * servers.length);
  if (sent.get('ping') === 0) sent.delete('ping');
  return { sent, inScripts };
}

const perFlow = (count: number, flows: number) => (flows === 0 ? Number.NaN : count / flows);
const fixed = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '–');

export async function fleetCurve(bench: FleetBench): Promise<void> {
  const before = bench.load();
  const redis = await startRedisServer();
  const redisServers = [redis];
  const stats = new Redis(redis.url, { lazyConnect: true });
  const statsClients = [stats];
  const keyring = randomBytes(32).toString('base64');
  const servers: FleetServer[] = [];
  const clusters: RedisClusterHandle[] = [];
  try {
    await stats.connect();
    const memory = await bench.startServer({ FLEET_KEYRING: keyring });
    servers.push(memory);
    const memoryEast = await bench.startServer({ FLEET_KEYRING: keyring });
    servers.push(memoryEast);
    const memoryWest = await bench.startServer({ FLEET_KEYRING: keyring });
    servers.push(memoryWest);
    const east = await bench.startServer({ FLEET_KEYRING: keyring, FLEET_REDIS_URL: redis.url });
    servers.push(east);
    const west = await bench.startServer({ FLEET_KEYRING: keyring, FLEET_REDIS_URL: redis.url });
    servers.push(west);
    // BullMQ's instances get a Redis of their own: their workers' idle polling must not count
    // in the other setups' commands.
    const bullRedis = await startRedisServer();
    redisServers.push(bullRedis);
    const bullStats = new Redis(bullRedis.url, { lazyConnect: true });
    statsClients.push(bullStats);
    await bullStats.connect();
    const bullEnv = {
      FLEET_KEYRING: keyring,
      FLEET_REDIS_URL: bullRedis.url,
      FLEET_RUNNER: 'bullmq',
    };
    const bullEast = await bench.startServer(bullEnv);
    servers.push(bullEast);
    const bullWest = await bench.startServer(bullEnv);
    servers.push(bullWest);
    const pipelined = [
      await bench.startServer({
        FLEET_KEYRING: keyring,
        FLEET_REDIS_URL: redis.url,
        FLEET_REDIS_AUTOPIPELINE: '1',
      }),
      await bench.startServer({
        FLEET_KEYRING: keyring,
        FLEET_REDIS_URL: redis.url,
        FLEET_REDIS_AUTOPIPELINE: '1',
      }),
    ] as [FleetServer, FleetServer];
    servers.push(...pipelined);
    // The cluster's own three masters: its scripts' keys share one slot (the prefix's hash tag).
    const cluster = await startRedisCluster();
    clusters.push(cluster);
    const masters = cluster.masters.map((master) => new Redis(master.url, { lazyConnect: true }));
    statsClients.push(...masters);
    for (const master of masters) await master.connect();
    const clusterEnv = {
      FLEET_KEYRING: keyring,
      FLEET_REDIS_CLUSTER_NODES: cluster.nodes.join(','),
    };
    const onCluster = [
      await bench.startServer(clusterEnv),
      await bench.startServer(clusterEnv),
    ] as [FleetServer, FleetServer];
    servers.push(...onCluster);
    const setups: Record<
      Setup,
      { pair: [FleetServer, FleetServer]; servers: FleetServer[]; stats: Redis[] }
    > = {
      memory: { pair: [memory, memory], servers: [memory], stats: [stats] },
      'memory-pair': {
        pair: [memoryEast, memoryWest],
        servers: [memoryEast, memoryWest],
        stats: [stats],
      },
      redis: { pair: [east, west], servers: [east, west], stats: [stats] },
      'redis-autopipeline': { pair: pipelined, servers: pipelined, stats: [stats] },
      cluster: { pair: onCluster, servers: onCluster, stats: masters },
      bullmq: { pair: [bullEast, bullWest], servers: [bullEast, bullWest], stats: [bullStats] },
    };
    const results = new Map<string, Measured>();
    const samples = new Map<string, Awaited<ReturnType<typeof monitored>>>();
    for (const kind of KINDS) {
      const passOf = async (setup: Setup): Promise<Measured> => {
        const { pair, servers: measured, stats } = setups[setup];
        const calls = await commandCalls(stats);
        const redisCpu = await redisCpuUs(stats);
        const [pass, cpuUs] = await bench.cpuAround(measured, () =>
          closedLoop(kind, pair, bench.seconds, bench.concurrency),
        );
        const redisCpuAfter = await redisCpuUs(stats);
        const after = await commandCalls(stats);
        const commands = new Map<string, number>();
        for (const [command, count] of after) {
          // The bench's own INFO calls on each server: the one before's, and the two INFO cpu around the pass.
          const own = command === 'info' ? 3 * stats.length : 0;
          const delta = count - (calls.get(command) ?? 0) - own;
          if (delta > 0) commands.set(command, delta);
        }
        return {
          ...pass,
          serverCpuUs: cpuUs,
          redisCpuUs: redisCpuAfter - redisCpu,
          commands,
        };
      };
      const kindSetups = SETUPS[kind];
      for (const setup of kindSetups) await passOf(setup);
      for (let round = 0; round < bench.rounds; round++) {
        for (const setup of kindSetups) {
          const pass = await passOf(setup);
          const key = `${kind} ${setup}`;
          const sum = results.get(key) ?? empty();
          sum.flows += pass.flows;
          sum.failures += pass.failures;
          sum.seconds += pass.seconds;
          sum.serverCpuUs += pass.serverCpuUs;
          sum.redisCpuUs += pass.redisCpuUs;
          sum.reads += pass.reads;
          sum.firstError ??= pass.firstError;
          for (const [command, count] of pass.commands)
            sum.commands.set(command, (sum.commands.get(command) ?? 0) + count);
          results.set(key, sum);
        }
      }
      for (const setup of kindSetups.filter((name) => name !== 'memory'))
        samples.set(
          `${kind} ${setup}`,
          await monitored(setups[setup].stats, kind, setups[setup].pair),
        );
    }
    report(bench, before, results, samples);
  } finally {
    for (const server of servers) await bench.stopServer(server);
    for (const client of statsClients) client.disconnect();
    for (const server of redisServers) await server.close();
    for (const cluster of clusters) await cluster.close();
    agent.destroy();
  }
}

function report(
  bench: FleetBench,
  before: string,
  results: Map<string, Measured>,
  samples: Map<string, { sent: Map<string, number>; inScripts: Map<string, number> }>,
): void {
  const rows: string[] = [];
  const commandRows: string[] = [];
  const chart: [string, number][] = [];
  const failures: string[] = [];
  for (const kind of KINDS) {
    const memory = results.get(`${kind} memory`) ?? empty();
    const rate = (m: Measured) => m.flows / m.seconds;
    const cpu = (m: Measured) => perFlow(m.serverCpuUs, m.flows);
    const label =
      kind === 'single-use' ? 'single-use flow (2 rounds)' : 'task (create + tasks/get)';
    for (const setup of SETUPS[kind]) {
      const m = results.get(`${kind} ${setup}`) ?? empty();
      const onRedis = setup !== 'memory' && setup !== 'memory-pair';
      const throughputRatio = rate(m) / rate(memory);
      // Per instance: the flows one instance's CPU serves, from the servers' CPU per flow.
      const capacityRatio = cpu(memory) / cpu(m);
      const commands = [...m.commands.values()].reduce((sum, count) => sum + count, 0);
      rows.push(
        `| ${label} | ${SETUP_LABELS[setup]} | ${fixed(rate(m), 0)} | ${x(throughputRatio)} | ` +
          `${fixed(cpu(m), 0)} | ${x(capacityRatio)} | ` +
          `${onRedis ? fixed(perFlow(m.redisCpuUs, m.flows), 0) : '–'} | ` +
          `${onRedis ? fixed(perFlow(commands, m.flows)) : '–'} | ` +
          `${kind === 'task' ? fixed(perFlow(m.reads, m.flows)) : '–'} | ${m.failures} |`,
      );
      chart.push([`${kind}, ${SETUP_LABELS[setup]}`, rate(m)]);
      if (m.firstError) failures.push(`${label}, ${setup}: ${m.firstError.slice(0, 200)}`);
      if (!onRedis) continue;
      const sample = samples.get(`${kind} ${setup}`);
      const names = new Set([
        ...m.commands.keys(),
        ...(sample?.sent.keys() ?? []),
        ...(sample?.inScripts.keys() ?? []),
      ]);
      const where = `${label}, ${SETUP_LABELS[setup].replace(/^two instances, /, '')}`;
      for (const name of [...names].sort()) {
        const sent = perFlow(sample?.sent.get(name) ?? 0, MONITORED_FLOWS);
        const inScripts = perFlow(sample?.inScripts.get(name) ?? 0, MONITORED_FLOWS);
        commandRows.push(
          `| ${where} | ${name.toUpperCase()} | ${fixed(perFlow(m.commands.get(name) ?? 0, m.flows))} | ${fixed(sent)} | ${fixed(inScripts)} |`,
        );
      }
      const sent = [...(sample?.sent.values() ?? [])].reduce((sum, count) => sum + count, 0);
      commandRows.push(
        `| ${where} | **round trips (all commands sent)** | **${fixed(perFlow(commands, m.flows))}** (all) | **${fixed(perFlow(sent, MONITORED_FLOWS))}** | |`,
      );
      if (kind === 'single-use' && setup === 'redis') {
        const pair = results.get(`${kind} memory-pair`) ?? empty();
        bench.target(
          'Two instances on Redis: single-use flow throughput ≥ 0.8× one instance in memory, per instance',
          `${x(capacityRatio)} per instance (CPU per flow); fleet ${x(throughputRatio)} flows/s; ` +
            `two instances in memory ${x(cpu(memory) / cpu(pair))}, Redis against them ${x(cpu(pair) / cpu(m))}`,
          bench.quick ? undefined : capacityRatio >= 0.8,
        );
      }
    }
  }
  bench.section('A fleet: one instance in memory vs two on Redis', before, [
    `Single-use flows: round 1 of \`transfer\` (FRAMEWORK_PROTECTED, \`singleUse: true\`, the sample's ` +
      '`transfer_funds` shape) on one instance, round 2 with the approval on the other. Tasks: `park` created as a ' +
      'task on one instance, `tasks/get` on the other until `completed` with its result, with the in-process runner ' +
      'a fleet has by default (the step runs where the task was created; task events over Redis pub/sub) and with ' +
      "`BullMqTaskRunner` (concurrency 20 per instance; any instance's worker runs the step; its two instances on " +
      "a redis-server of their own, so that their workers' idle polling counts only there). On a **three-master Redis " +
      "Cluster** (`redis.cluster`; the module's keys in one slot through its hash-tagged prefix, Redis CPU and " +
      'commands summed over the masters) and with **ioredis auto-pipelining** (`redis.client` with ' +
      '`enableAutoPipelining`, on the one Redis). The two halves go A → B and B → A by turns. Memory: ' +
      'both halves on the one instance. Two instances in memory each (single-use flows only) is a control, not a ' +
      'fleet (each instance consumes states in its own memory, so a replay on the other would be accepted): the ' +
      'same routing without Redis, telling what two processes on these cores cost from what Redis costs. ' +
      `${bench.concurrency} flows at once in a closed loop, passes of ` +
      `${bench.seconds} s alternating memory, (two in memory,) Redis (, BullMQ), memory, … (${bench.rounds} each after a warm-up pass), ` +
      'the bench client, both instances and redis-server on the same 2 cores. **Per instance** is the ratio of ' +
      "the servers' CPU per flow (both instances added up on Redis): the flows an instance serves with one " +
      'core-second, the number the target is about, since on this machine two instances share the cores one would ' +
      "have. Redis CPU is redis-server's main thread (`INFO cpu`). Commands are `INFO commandstats` calls during " +
      'the measured passes divided by the flows (commands a Lua script runs are counted by Redis too). The bench ' +
      'reads a task right after creating it and again 2 ms after each `working` answer (a client would wait ' +
      "`pollIntervalMs`, 1 s): in memory the step has ended by the first read; on Redis the step's own round " +
      'trips race the read on the other instance, so more reads per flow.',
    '',
    '| Flow | Setup | flows/s | vs memory | Server CPU µs/flow | per instance vs memory | Redis CPU µs/flow | Redis commands/flow | tasks/get per flow | Failures |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    `By command, on Redis: per flow over the measured passes (\`INFO commandstats\`), and in ${MONITORED_FLOWS} ` +
      'sequential flows under `MONITOR` afterwards, split into what the instances send (each one a round trip) ' +
      'and what the scripts they send run inside Redis.',
    '',
    '| Flow | Command | commandstats per flow | sent per flow (MONITOR) | inside scripts per flow |',
    '|---|---|---:|---:|---:|',
    ...commandRows,
    '',
    bench.bars(chart, 'flows/s'),
    ...(failures.length ? ['', 'First failures:', '', ...failures.map((line) => `- ${line}`)] : []),
  ]);
}

const x = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}×` : '–');
