/**
 * What DPoP costs the server: a `tools/call` with an ES256 DPoP proof (RFC 9449) against the same
 * call with a bearer token, both verified by the built-in resource server against a real
 * authorization server (oidc-provider, in a child process) — with the proofs' replay cache in
 * memory, and on Redis (a private redis-server). Each server runs in a process of its own; its CPU
 * time (user + system) over BENCH_CALLS (2,000) sequential calls is what is compared, in rounds
 * that alternate bearer and DPoP (BENCH_ROUNDS, 3), after a warm-up. The proofs are signed before
 * the measured window, in this process. The target: a call with a proof at most 1.3 × the bearer
 * call. With each ratio it prints the floor measured in the same run: the bearer call plus one ES256
 * verification (and, for Redis, one `SET NX PX` round trip), what no implementation can skip. The
 * machine should be quiet (load average below ~3): the script prints the load.
 *
 * Run: npm run bench:dpop
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createPublicKey, verify } from 'node:crypto';
import { Redis } from 'ioredis';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { nextMessage } from './child-messages';
import type { BenchCommand } from './servers/harness';
import { startAuthorizationServer } from '../test/utils/authorization-server';
import { TestDpopKey } from '../test/utils/dpop';
import { startRedisServer } from '../test/utils/redis-server';

const CALLS = Number(process.env.BENCH_CALLS ?? 2_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP = 300;

interface Server {
  readonly child: ChildProcess;
  readonly url: string;
}

async function startServer(env: Record<string, string>): Promise<Server> {
  const child = fork(join(__dirname, 'servers', 'dpop-app.ts'), [], {
    // BENCH_CPU_PROF_DIR profiles each server (`node --cpu-prof`), as in bench:http.
    execArgv: [
      '-r',
      'ts-node/register/transpile-only',
      ...(process.env.BENCH_CPU_PROF_DIR
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`]
        : []),
    ],
    env: { ...process.env, TS_NODE_PROJECT: 'tsconfig.json', ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await nextMessage(child, 'ready', 60_000);
  return { child, url: `http://127.0.0.1:${ready.port}/mcp` };
}

function send(child: ChildProcess, command: BenchCommand): void {
  child.send(command);
}

const body = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {
    name: 'echo',
    arguments: { text: 'hello' },
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
});

async function call(url: string, authorization: Record<string, string>): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
      ...authorization,
    },
    body,
  });
  const text = await response.text();
  if (response.status !== 200 || !text.includes('"hello"'))
    throw new Error(`call answered ${response.status}: ${text.slice(0, 300)}`);
}

/** Server CPU µs per call over `headers` (one set per call). */
async function measure(server: Server, headers: Record<string, string>[]): Promise<number> {
  send(server.child, { type: 'cpu-start' });
  await nextMessage(server.child, 'cpu-started', 10_000);
  for (const each of headers) await call(server.url, each);
  send(server.child, { type: 'cpu-stop' });
  const cpu = await nextMessage(server.child, 'cpu', 10_000);
  return (cpu.userUs + cpu.systemUs) / headers.length;
}

/** CPU µs of `work` per run, here in the bench process (sequential, as the calls are). */
async function cpuPerRun(runs: number, work: () => unknown): Promise<number> {
  for (let i = 0; i < 200; i++) await work();
  const start = process.cpuUsage();
  for (let i = 0; i < runs; i++) await work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / runs;
}

/**
 * What no DPoP implementation can skip, measured in this run: verifying one ES256 signature, and
 * recording one `jti` in Redis (one `SET NX PX` round trip, the least a fleet-wide replay check
 * costs).
 */
async function floorsOf(
  redisUrl: string,
  proof: string,
): Promise<{ verify: number; redis: number }> {
  const end = proof.lastIndexOf('.');
  const header = JSON.parse(
    Buffer.from(proof.slice(0, proof.indexOf('.')), 'base64url').toString(),
  ) as {
    jwk: import('node:crypto').JsonWebKey;
  };
  const key = createPublicKey({ key: header.jwk, format: 'jwk' });
  const input = Buffer.from(proof.slice(0, end));
  const signature = Buffer.from(proof.slice(end + 1), 'base64url');
  const verifyUs = await cpuPerRun(CALLS, () => {
    if (!verify('sha256', input, { key, dsaEncoding: 'ieee-p1363' }, signature))
      throw new Error('the proof did not verify');
  });
  const client = new Redis(redisUrl);
  let n = 0;
  try {
    const redisUs = await cpuPerRun(CALLS, () =>
      client.set(`floor:${n++}`, '1', 'PX', 60_000, 'NX'),
    );
    return { verify: verifyUs, redis: redisUs };
  } finally {
    client.disconnect();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

void (async () => {
  console.log(
    `load average ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')} (trust the numbers below ~3)`,
  );
  const as = await startAuthorizationServer();
  const redis = await startRedisServer();
  const servers: Server[] = [];
  try {
    for (const [cache, env] of [
      ['memory', { BENCH_ISSUER: as.issuer }],
      ['Redis', { BENCH_ISSUER: as.issuer, BENCH_REDIS_URL: redis.url }],
    ] as const) {
      const server = await startServer(env);
      servers.push(server);
      const key = await TestDpopKey.create();
      const bearer = await as.token('admin', { scope: 'mcp:tools', resource: server.url });
      const bound = await as.token('admin', {
        scope: 'mcp:tools',
        resource: server.url,
        dpop: key,
      });
      const bearerHeaders = (n: number) =>
        Array.from({ length: n }, () => ({ authorization: `Bearer ${bearer}` }));
      const dpopHeaders = async (n: number) => {
        const headers: Record<string, string>[] = [];
        for (let i = 0; i < n; i++)
          headers.push({
            authorization: `DPoP ${bound}`,
            dpop: await key.proof({ htm: 'POST', htu: server.url, accessToken: bound }),
          });
        return headers;
      };
      await measure(server, bearerHeaders(WARMUP));
      await measure(server, await dpopHeaders(WARMUP));
      const bearerUs: number[] = [];
      const dpopUs: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        bearerUs.push(await measure(server, bearerHeaders(CALLS)));
        dpopUs.push(await measure(server, await dpopHeaders(CALLS)));
      }
      const b = median(bearerUs);
      const d = median(dpopUs);
      const floors = await floorsOf(
        redis.url,
        await key.proof({ htm: 'POST', htu: server.url, accessToken: bound }),
      );
      const floor = b + floors.verify + (cache === 'Redis' ? floors.redis : 0);
      console.log(
        `replay cache in ${cache.padEnd(6)}  bearer ${b.toFixed(0)} µs/call  DPoP (ES256) ${d.toFixed(0)} µs/call  ` +
          `ratio ${(d / b).toFixed(2)} (target ≤ 1.30)  [rounds: bearer ${bearerUs.map((v) => v.toFixed(0)).join(' ')}, DPoP ${dpopUs.map((v) => v.toFixed(0)).join(' ')}]\n` +
          `  floor: bearer + one ES256 verify (${floors.verify.toFixed(0)} µs)` +
          (cache === 'Redis'
            ? ` + one Redis SET NX PX round trip (${floors.redis.toFixed(0)} µs)`
            : '') +
          ` = ${floor.toFixed(0)} µs, ratio ${(floor / b).toFixed(2)}; DPoP's own work beyond it ${(d - floor).toFixed(0)} µs`,
      );
    }
  } finally {
    for (const server of servers) {
      send(server.child, { type: 'exit' });
      await new Promise((done) => server.child.once('exit', done));
    }
    await redis.close();
    await as.stop();
  }
  console.log(
    `load average ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}`,
  );
})().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
