/**
 * One MCP `tools/call` of an `echo` tool over HTTP, side by side: a bare Nest controller answering
 * the same bytes (the baseline), the SDK v2 on plain node:http, @rekog/mcp-nest and nestjs-mcp.
 * Each server is a child process (bench/servers/*.ts) on 127.0.0.1 with an ephemeral port; this
 * process loads them with autocannon, one at a time, in interleaved passes (a warm-up per server,
 * then BENCH_ROUNDS rounds over all servers, the order rotated each round). Every response is
 * compared byte for byte with the answer the server gave to a structurally checked probe. Server
 * CPU time (user + system, measured inside the child around each pass) per request and req/s are
 * written, with their ratio to the baseline, to bench/RESULTS.md and bench/results.svg.
 *
 * Run: npm run bench:http
 * Env: BENCH_SECONDS (10) per pass, BENCH_WARMUP_SECONDS (10) per server, BENCH_ROUNDS (3),
 *      BENCH_CONNECTIONS (10), BENCH_ONLY (comma-separated server keys), BENCH_OUT_DIR (bench),
 *      BENCH_CPU_PROF_DIR (write a CPU profile of each server there), BENCH_SERVER_FLAGS (more
 *      Node flags for each server, space-separated), BENCH_NEST (11, or 12: the bare controllers and
 *      nestjs-mcp servers on Nest 12),
 *      BENCH_BEFORE (the path of another checkout with its own node_modules, e.g. a git worktree of
 *      an earlier commit: each nestjs-mcp server of this run is also run from there, in the same
 *      interleaved passes, and the report compares the two).
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem, type as osType, release } from 'node:os';
import { join, relative, sep } from 'node:path';
import autocannon from 'autocannon';
import type { BenchCommand, BenchReport } from './servers/harness';
import { nextMessage as nextChildMessage } from './child-messages';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const OUT_DIR = process.env.BENCH_OUT_DIR ?? 'bench';
const PROTOCOL_VERSION = '2026-07-28';
const TEXT = 'hello, bench';
/** The id of the probe request; its answer, with this id replaced, is every later answer. */
const PROBE_ID = 987654321;

interface ServerSpec {
  key: string;
  label: string;
  file: string;
  variant?: string;
  /** Sends the second round of a sealed flow (round 1 is sent once, at setup). */
  sealed?: boolean;
  /** Sends these input responses with every call (no state): the input steps without opening state. */
  answers?: boolean;
  /** Runs only when named in BENCH_ONLY: servers that break the sealed round's cost down. */
  extra?: boolean;
  /** Calls over a 2025-era session, opened once at setup (`initialize`, `Mcp-Session-Id`). */
  session?: boolean;
  /** The server its "vs bare" columns compare with: the bare controller on the same platform. */
  baseline?: string;
  /** The checkout the server runs from; this one when unset (see BENCH_BEFORE). */
  tree?: string;
}

const BEFORE_TREE = process.env.BENCH_BEFORE;

/**
 * BENCH_NEST=12 runs the bare Nest controllers and the nestjs-mcp servers on Nest 12 (the tests'
 * Nest 12 install, bench/servers/on-nest-12.ts); Nest 11, the project's own, by default.
 */
const NEST = process.env.BENCH_NEST ?? '11';
if (NEST !== '11' && NEST !== '12') throw new Error(`BENCH_NEST=${NEST}: 11 or 12`);
const NEST12_DIR =
  NEST === '12'
    ? execFileSync(process.execPath, [join(__dirname, '..', 'scripts', 'nest12.mjs'), 'install'], {
        encoding: 'utf8',
      })
        .trim()
        .split('\n')
        .pop()
    : undefined;
/** The servers BENCH_NEST applies to (the others bring their own Nest or none). */
const ON_CHOSEN_NEST = new Set(['bare-nest.ts', 'nestjs-mcp.ts']);

/** The same server run from the BENCH_BEFORE checkout. */
function beforeOf(spec: ServerSpec): ServerSpec {
  return { ...spec, key: `${spec.key}@before`, label: `${spec.label} (before)`, tree: BEFORE_TREE };
}

const CONFIRM_ANSWER = { confirm: { action: 'accept', content: { ok: true } } };

const SERVERS: ServerSpec[] = [
  { key: 'bare', label: 'bare Nest controller (Express)', file: 'bare-nest.ts' },
  {
    key: 'bare-fastify',
    label: 'bare Nest controller (Fastify)',
    file: 'bare-nest.ts',
    variant: 'fastify',
  },
  { key: 'sdk-server', label: 'SDK v2 Server, node:http', file: 'sdk-server.ts' },
  { key: 'sdk-mcpserver', label: 'SDK v2 McpServer, node:http', file: 'sdk-mcp-server.ts' },
  { key: 'rekog', label: '@rekog/mcp-nest (Express)', file: 'rekog-mcp-nest.ts' },
  { key: 'express', label: 'nestjs-mcp, Express', file: 'nestjs-mcp.ts', variant: 'express' },
  {
    key: 'fastify',
    label: 'nestjs-mcp, Fastify',
    file: 'nestjs-mcp.ts',
    variant: 'fastify',
    baseline: 'bare-fastify',
  },
  {
    key: 'session',
    label: 'nestjs-mcp, Express, on a 2025-era session',
    file: 'nestjs-mcp.ts',
    variant: 'express',
    session: true,
  },
  {
    key: 'dto',
    label: 'nestjs-mcp, DTO + ValidationPipe + guard',
    file: 'nestjs-mcp.ts',
    variant: 'dto',
  },
  {
    key: 'sealed',
    label: 'nestjs-mcp, sealed flow round 2',
    file: 'nestjs-mcp.ts',
    variant: 'sealed',
    sealed: true,
  },
  {
    key: 'declared',
    label: 'nestjs-mcp, input declared, answers sent, no state',
    file: 'nestjs-mcp.ts',
    variant: 'declared',
    answers: true,
    extra: true,
  },
  {
    key: 'traced',
    label: 'nestjs-mcp, Express, OpenTelemetry tracing + metrics (in-memory exporter)',
    file: 'nestjs-mcp.ts',
    variant: 'traced',
    extra: true,
  },
  {
    key: 'traced-sampled',
    label: 'nestjs-mcp, Express, OpenTelemetry metrics + tracing sampled at 10 % (parent-based)',
    file: 'nestjs-mcp.ts',
    variant: 'traced-sampled',
    extra: true,
  },
  {
    key: 'audit-jsonl',
    label: 'nestjs-mcp, Express, audit trail best-effort to JSON lines',
    file: 'nestjs-mcp.ts',
    variant: 'audit-jsonl',
    extra: true,
  },
  {
    key: 'audit-jsonl-fastify',
    label: 'nestjs-mcp, Fastify, audit trail best-effort to JSON lines',
    file: 'nestjs-mcp.ts',
    variant: 'audit-jsonl-fastify',
    baseline: 'bare-fastify',
    extra: true,
  },
  {
    key: 'audit-strict-redis',
    label: 'nestjs-mcp, Express, audit trail strict on a Redis stream',
    file: 'nestjs-mcp.ts',
    variant: 'audit-strict-redis',
    extra: true,
  },
  {
    key: 'audit-strict-redis-fastify',
    label: 'nestjs-mcp, Fastify, audit trail strict on a Redis stream',
    file: 'nestjs-mcp.ts',
    variant: 'audit-strict-redis-fastify',
    baseline: 'bare-fastify',
    extra: true,
  },
  {
    key: 'aead-floor',
    label: 'nestjs-mcp, echo that opens one AES-256-GCM token itself',
    file: 'nestjs-mcp.ts',
    variant: 'aead-floor',
    extra: true,
  },
  {
    key: 'unsealed',
    label: 'nestjs-mcp, framework-protected tool, answers sent, no state',
    file: 'nestjs-mcp.ts',
    variant: 'unsealed',
    answers: true,
    extra: true,
  },
];

const HEADERS = {
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  'MCP-Protocol-Version': PROTOCOL_VERSION,
  'Mcp-Method': 'tools/call',
  'Mcp-Name': 'echo',
  Authorization: 'Bearer bench',
};

/** The protocol version of the 2025-era session case. */
const SESSION_PROTOCOL_VERSION = '2025-11-25';

/** Headers of a 2025-era request (before its session is known). */
const SESSION_HEADERS = {
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  Authorization: 'Bearer bench',
};

/** The echo call as a 2025-era client sends it: no `_meta` envelope, no per-request headers. */
function sessionCallBody(id: number): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text: TEXT } },
  });
}

/** Opens a 2025-era session (`initialize`, `notifications/initialized`); the headers of its requests. */
async function openSession(port: number): Promise<Record<string, string>> {
  const opened = await post(
    port,
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: SESSION_PROTOCOL_VERSION,
        capabilities: { elicitation: { form: {} } },
        clientInfo: { name: 'bench', version: '1.0.0' },
      },
    }),
    SESSION_HEADERS,
  );
  if (opened.status !== 200 || !opened.sessionId)
    throw new Error(`initialize answered HTTP ${opened.status}: ${opened.text}`);
  const headers = {
    ...SESSION_HEADERS,
    'Mcp-Session-Id': opened.sessionId,
    'MCP-Protocol-Version': SESSION_PROTOCOL_VERSION,
  };
  const initialized = await post(
    port,
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    headers,
  );
  if (initialized.status !== 202)
    throw new Error(`notifications/initialized answered HTTP ${initialized.status}`);
  return headers;
}

function callBody(id: number, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'echo',
      arguments: { text: TEXT },
      ...extra,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
      },
    },
  });
}

/** A body (or expected answer) text with its JSON-RPC id cut out, to be filled per request. */
class IdTemplate {
  private readonly before: string;
  private readonly after: string;

  constructor(text: string, id: number) {
    const parts = text.split(`"id":${id}`);
    if (parts.length !== 2) throw new Error(`expected exactly one "id":${id} in ${text}`);
    [this.before, this.after] = parts;
  }

  with(id: number): string {
    return `${this.before}"id":${id}${this.after}`;
  }
}

interface Running {
  spec: ServerSpec;
  child: ChildProcess;
  port: number;
  wire: string;
  /** The headers of every measured call. */
  headers: Record<string, string>;
  /** The request body of the measured call, with the id to fill in. */
  body: IdTemplate;
  /** The answer every measured call must get, byte for byte. */
  expected: IdTemplate;
  /** Send a fresh id per request (the sealed flow refuses the id its state was issued to). */
  freshIds: boolean;
}

interface Pass {
  round: number;
  requests: number;
  seconds: number;
  cpuUs: number;
  mismatches: number;
  errors: number;
}

function nextMessage<T extends BenchReport['type']>(
  child: ChildProcess,
  type: T,
  timeoutMs = 60_000,
): Promise<Extract<BenchReport, { type: T }>> {
  return nextChildMessage(child, type, timeoutMs);
}

function command(child: ChildProcess, message: BenchCommand): void {
  child.send(message);
}

async function post(
  port: number,
  body: string,
  headers: Record<string, string> = HEADERS,
): Promise<{ status: number; text: string; sessionId: string | null }> {
  const response = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers, body });
  return {
    status: response.status,
    text: await response.text(),
    sessionId: response.headers.get('mcp-session-id'),
  };
}

type JsonObject = Record<string, unknown>;

/** Structural check of a complete echo result; throws with the answer when it is not one. */
function checkEchoResult(text: string, id: number, wire: string): void {
  const answer = JSON.parse(text) as JsonObject;
  const result = answer.result as JsonObject | undefined;
  const content = result?.content as JsonObject[] | undefined;
  const ok =
    answer.jsonrpc === '2.0' &&
    answer.id === id &&
    answer.error === undefined &&
    Array.isArray(content) &&
    content.length === 1 &&
    content[0].type === 'text' &&
    content[0].text === TEXT &&
    result?.isError !== true &&
    (wire !== PROTOCOL_VERSION || result?.resultType === 'complete');
  if (!ok) throw new Error(`not the echo result: ${text}`);
}

async function start(spec: ServerSpec): Promise<Running> {
  const tree = spec.tree ?? join(__dirname, '..');
  const child = fork(join(tree, 'bench', 'servers', spec.file), [], {
    cwd: tree,
    // BENCH_CPU_PROF_DIR profiles each server (`node --cpu-prof`), to see where its time goes;
    // BENCH_SERVER_FLAGS adds Node flags of its own (e.g. `--trace-gc`, which NODE_OPTIONS refuses).
    execArgv: [
      ...(process.env.BENCH_SERVER_FLAGS?.split(' ').filter(Boolean) ?? []),
      '-r',
      'ts-node/register/transpile-only',
      ...(NEST12_DIR && ON_CHOSEN_NEST.has(spec.file)
        ? ['-r', join(tree, 'bench', 'servers', 'on-nest-12.ts')]
        : []),
      ...(process.env.BENCH_CPU_PROF_DIR
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`]
        : []),
    ],
    env: {
      ...process.env,
      TS_NODE_PROJECT: 'tsconfig.json',
      BENCH_VARIANT: spec.variant ?? '',
      ...(NEST12_DIR && { BENCH_NEST12_DIR: NEST12_DIR }),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    return await probe(spec, child);
  } catch (error) {
    child.kill();
    throw error;
  }
}

/** Waits for the server, sends the sealed flow's round 1 if any, and checks the probe answer. */
async function probe(spec: ServerSpec, child: ChildProcess): Promise<Running> {
  const { port, wire } = await nextMessage(child, 'ready');
  if (spec.session) {
    const headers = await openSession(port);
    const answer = await post(port, sessionCallBody(PROBE_ID), headers);
    if (answer.status !== 200)
      throw new Error(`${spec.key}: HTTP ${answer.status}: ${answer.text}`);
    checkEchoResult(answer.text, PROBE_ID, SESSION_PROTOCOL_VERSION);
    return {
      spec,
      child,
      port,
      wire: `${SESSION_PROTOCOL_VERSION} session`,
      headers,
      body: new IdTemplate(sessionCallBody(PROBE_ID), PROBE_ID),
      expected: new IdTemplate(answer.text, PROBE_ID),
      freshIds: false,
    };
  }
  let extra: Record<string, unknown> = {};
  if (spec.sealed) {
    const first = await post(port, callBody(1));
    const round1 = JSON.parse(first.text) as { result?: JsonObject };
    const requestState = round1.result?.requestState;
    if (
      first.status !== 200 ||
      round1.result?.resultType !== 'input_required' ||
      typeof requestState !== 'string'
    ) {
      throw new Error(`${spec.key}: round 1 did not ask for input: ${first.text}`);
    }
    extra = {
      inputResponses: CONFIRM_ANSWER,
      requestState,
    };
  } else if (spec.answers) {
    extra = { inputResponses: CONFIRM_ANSWER };
  }
  const answer = await post(port, callBody(PROBE_ID, extra));
  if (answer.status !== 200) throw new Error(`${spec.key}: HTTP ${answer.status}: ${answer.text}`);
  checkEchoResult(answer.text, PROBE_ID, wire);
  return {
    spec,
    child,
    port,
    wire,
    headers: HEADERS,
    body: new IdTemplate(callBody(PROBE_ID, extra), PROBE_ID),
    expected: new IdTemplate(answer.text, PROBE_ID),
    freshIds: spec.sealed === true,
  };
}

let nextId = 1_000_000;

/** Loads one server for `seconds`; every answer is compared with the expected bytes. */
async function load(
  server: Running,
  seconds: number,
): Promise<{ requests: number; mismatches: number; errors: number; firstMismatch?: string }> {
  let responses = 0;
  let mismatches = 0;
  let firstMismatch: string | undefined;
  const check = (status: number, body: string, expected: string) => {
    responses++;
    if (status === 200 && body === expected) return;
    mismatches++;
    firstMismatch ??= `HTTP ${status}: ${body.slice(0, 500)}`;
  };
  let request: autocannon.Request;
  if (server.freshIds) {
    request = {
      method: 'POST',
      path: '/mcp',
      headers: server.headers,
      setupRequest: (req, context) => {
        const id = nextId++;
        (context as { id?: number }).id = id;
        return { ...req, body: server.body.with(id) };
      },
      onResponse: (status, body, context) =>
        check(status, body, server.expected.with((context as { id: number }).id)),
    };
  } else {
    const expected = server.expected.with(1);
    request = {
      method: 'POST',
      path: '/mcp',
      headers: server.headers,
      body: server.body.with(1),
      onResponse: (status, body) => check(status, body, expected),
    };
  }
  const result = await autocannon({
    url: `http://127.0.0.1:${server.port}`,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [request],
  });
  return {
    requests: responses,
    mismatches,
    errors: result.errors + result.timeouts,
    firstMismatch,
  };
}

async function measuredPass(server: Running, round: number): Promise<Pass> {
  const started = nextMessage(server.child, 'cpu-started');
  command(server.child, { type: 'cpu-start' });
  await started;
  const begin = process.hrtime.bigint();
  const outcome = await load(server, SECONDS);
  const seconds = Number(process.hrtime.bigint() - begin) / 1e9;
  const cpu = nextMessage(server.child, 'cpu');
  command(server.child, { type: 'cpu-stop' });
  const { userUs, systemUs } = await cpu;
  if (outcome.firstMismatch) {
    console.error(
      `  ${server.spec.key}: ${outcome.mismatches} wrong answers, first: ${outcome.firstMismatch}`,
    );
  }
  return {
    round,
    requests: outcome.requests,
    seconds,
    cpuUs: userUs + systemUs,
    mismatches: outcome.mismatches,
    errors: outcome.errors,
  };
}

interface Summary {
  spec: ServerSpec;
  wire: string;
  passes: Pass[];
  reqPerSec: number;
  cpuUsPerReq: number;
  mismatches: number;
  errors: number;
  verified: number;
}

function summarize(server: Running, passes: Pass[], warmupRequests: number): Summary {
  const requests = passes.reduce((sum, pass) => sum + pass.requests, 0);
  const seconds = passes.reduce((sum, pass) => sum + pass.seconds, 0);
  const cpuUs = passes.reduce((sum, pass) => sum + pass.cpuUs, 0);
  return {
    spec: server.spec,
    wire: server.wire,
    passes,
    reqPerSec: requests / seconds,
    cpuUsPerReq: cpuUs / requests,
    mismatches: passes.reduce((sum, pass) => sum + pass.mismatches, 0),
    errors: passes.reduce((sum, pass) => sum + pass.errors, 0),
    verified: requests + warmupRequests,
  };
}

function packageVersion(name: string, root = process.cwd()): string {
  try {
    const text = readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8');
    return (JSON.parse(text) as { version: string }).version;
  } catch {
    return 'not installed';
  }
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Two horizontal bar panels: server CPU µs per request, and requests per second. */
function chart(summaries: Summary[]): string {
  const labelWidth = 300;
  const barWidth = 360;
  const rowHeight = 22;
  const panelHeight = 30 + summaries.length * rowHeight;
  const width = labelWidth + barWidth + 90;
  const height = panelHeight * 2 + 20;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
      `font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
  ];
  const panel = (
    top: number,
    title: string,
    value: (summary: Summary) => number,
    format: (n: number) => string,
    color: string,
  ) => {
    const max = Math.max(...summaries.map(value));
    parts.push(`<text x="10" y="${top + 18}" font-weight="bold">${escapeXml(title)}</text>`);
    summaries.forEach((summary, index) => {
      const y = top + 28 + index * rowHeight;
      const length = max > 0 ? (value(summary) / max) * barWidth : 0;
      parts.push(
        `<text x="${labelWidth - 8}" y="${y + 14}" text-anchor="end">${escapeXml(summary.spec.label)}</text>`,
        `<rect x="${labelWidth}" y="${y + 3}" width="${length.toFixed(1)}" height="${rowHeight - 6}" fill="${color}"/>`,
        `<text x="${(labelWidth + length + 6).toFixed(1)}" y="${y + 14}">${format(value(summary))}</text>`,
      );
    });
  };
  panel(
    0,
    'Server CPU per request (µs, lower is better)',
    (s) => s.cpuUsPerReq,
    (n) => n.toFixed(0),
    '#d9822b',
  );
  panel(
    panelHeight + 20,
    `Requests per second, ${CONNECTIONS} connections (higher is better)`,
    (s) => s.reqPerSec,
    (n) => n.toFixed(0),
    '#2b7bd9',
  );
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}

/** The command that reproduces this run (the bench's env variables that differ from the defaults). */
function commandLine(): string {
  const settings: [string, number, number][] = [
    ['BENCH_SECONDS', SECONDS, 10],
    ['BENCH_WARMUP_SECONDS', WARMUP_SECONDS, 10],
    ['BENCH_ROUNDS', ROUNDS, 3],
    ['BENCH_CONNECTIONS', CONNECTIONS, 10],
  ];
  const env = settings
    .filter(([, value, fallback]) => value !== fallback)
    .map(([name, value]) => `${name}=${value} `);
  const only = process.env.BENCH_ONLY ? `BENCH_ONLY=${process.env.BENCH_ONLY} ` : '';
  const before = BEFORE_TREE ? 'BENCH_BEFORE=<earlier checkout> ' : '';
  const nest = NEST === '12' ? 'BENCH_NEST=12 ' : '';
  return `${env.join('')}${only}${before}${nest}npm run bench:http`;
}

/** The targets of issues #8 and #21, checked against this run (a row only when its servers ran). */
function targetRows(summaries: Summary[]): string[] {
  const of = (key: string) => summaries.find((summary) => summary.spec.key === key);
  const bare = of('bare');
  const bareFastify = of('bare-fastify');
  const rekog = of('rekog');
  const express = of('express');
  const fastify = of('fastify');
  const dto = of('dto');
  const sealed = of('sealed');
  const rows: [string, string, boolean][] = [];
  const notes: string[] = [];
  const x = (value: number) => `${value.toFixed(2)}×`;
  if (express && bare) {
    const cpu = express.cpuUsPerReq / bare.cpuUsPerReq;
    rows.push([
      'echo `tools/call` on Express: server CPU ≤ 1.35× the bare Express controller (#21)',
      x(cpu),
      cpu <= 1.35,
    ]);
    notes.push(
      `- What the MCP layer adds on Express: ${(express.cpuUsPerReq - bare.cpuUsPerReq).toFixed(0)} µs ` +
        `per request (#21 aims at 40–60 µs).`,
    );
    const throughput = express.reqPerSec / bare.reqPerSec;
    rows.push([
      'echo: throughput ≥ 0.45 of the bare controller (#8)',
      x(throughput),
      throughput >= 0.45,
    ]);
  }
  if (fastify && bareFastify) {
    const cpu = fastify.cpuUsPerReq / bareFastify.cpuUsPerReq;
    rows.push([
      'echo `tools/call` on Fastify: server CPU ≤ 1.50× the bare Fastify controller (#21)',
      x(cpu),
      cpu <= 1.5,
    ]);
    notes.push(
      `- What the MCP layer adds on Fastify: ${(fastify.cpuUsPerReq - bareFastify.cpuUsPerReq).toFixed(0)} µs ` +
        `per request.`,
    );
  }
  if (express && rekog) {
    const vsRekog = express.reqPerSec / rekog.reqPerSec;
    rows.push(['echo: throughput ≥ 1.6× @rekog/mcp-nest (#8)', x(vsRekog), vsRekog >= 1.6]);
  }
  if (dto && bare) {
    const cpu = dto.cpuUsPerReq / bare.cpuUsPerReq;
    rows.push(['DTO + ValidationPipe + guard: server CPU ≤ 2.5× bare (#8)', x(cpu), cpu <= 2.5]);
  }
  if (sealed && express) {
    const cpu = sealed.cpuUsPerReq / express.cpuUsPerReq;
    rows.push(['sealed flow round 2: server CPU ≤ 1.25× a plain call (#21)', x(cpu), cpu <= 1.25]);
  }
  const floor = of('aead-floor');
  if (floor && express) {
    const cpu = floor.cpuUsPerReq / express.cpuUsPerReq;
    notes.push(
      `- For scale, not a target: a plain call whose handler opens one AES-256-GCM token with node:crypto ` +
        `(\`aead-floor\`) costs ${x(cpu)} a plain call, ` +
        `+${(floor.cpuUsPerReq - express.cpuUsPerReq).toFixed(0)} µs: what opening any authenticated-encrypted ` +
        `state costs a request here${sealed ? `; the sealed round costs +${(sealed.cpuUsPerReq - express.cpuUsPerReq).toFixed(0)} µs` : ''}.`,
    );
  }
  if (rows.length === 0) return [];
  return [
    '## Targets (issues #8 and #21), this run',
    '',
    '| Target | Measured | |',
    '|---|---:|---|',
    ...rows.map(
      ([target, measured, met]) => `| ${target} | ${measured} | ${met ? 'met' : '**missed**'} |`,
    ),
    '',
    ...(notes.length > 0 ? [...notes, ''] : []),
    `Where a target is missed, [PROFILE.md](${relative(OUT_DIR, join(__dirname, 'PROFILE.md')).split(sep).join('/')}) shows where the time goes.`,
    '',
  ];
}

/** This checkout against BENCH_BEFORE, server by server, in this run. */
function beforeRows(summaries: Summary[]): string[] {
  const pairs = summaries.flatMap((after) => {
    const before = summaries.find((summary) => summary.spec.key === `${after.spec.key}@before`);
    return before ? [{ after, before }] : [];
  });
  if (pairs.length === 0) return [];
  return [
    '## This checkout against the one before, same run',
    '',
    `Each nestjs-mcp server also ran from \`BENCH_BEFORE\`, interleaved in the same passes.`,
    '',
    '| Server | before µs/req | now µs/req | now / before |',
    '|---|---:|---:|---:|',
    ...pairs.map(
      ({ after, before }) =>
        `| ${after.spec.label} | ${before.cpuUsPerReq.toFixed(0)} | ${after.cpuUsPerReq.toFixed(0)} ` +
        `| ${(after.cpuUsPerReq / before.cpuUsPerReq).toFixed(3)}× |`,
    ),
    '',
  ];
}

/** The 1, 5 and 15 minute load averages, as `uptime` prints them. */
function loadAverages(): string {
  return loadavg()
    .map((load) => load.toFixed(2))
    .join(', ');
}

const LOAD_AT_START = loadAverages();

function report(summaries: Summary[], started: Date, wallSeconds: number): string {
  const baselineOf = (summary: Summary) =>
    summaries.find((other) => other.spec.key === (summary.spec.baseline ?? 'bare'));
  const ratio = (value: number, base: number | undefined) =>
    base === undefined ? '–' : `${(value / base).toFixed(2)}×`;
  const cpu = cpus();
  const lines = [
    '# HTTP bench: one echo `tools/call`',
    '',
    `Generated by \`npm run bench:http\` (bench/http.bench.ts) on ${started.toISOString()}; the run took ` +
      `${Math.round(wallSeconds)} s.`,
    '',
    `- Machine: ${cpu.length} CPUs (${cpu[0]?.model ?? 'unknown'}), ` +
      `${(totalmem() / 2 ** 30).toFixed(1)} GiB, ${osType()} ${release()}; shared and noisy, loopback only. ` +
      `Load average (1, 5, 15 min) at the start: ${LOAD_AT_START}; at the end: ${loadAverages()}.`,
    `- Node ${process.version}; autocannon ${packageVersion('autocannon')}, ` +
      `@modelcontextprotocol/server ${packageVersion('@modelcontextprotocol/server')}, ` +
      `@modelcontextprotocol/node ${packageVersion('@modelcontextprotocol/node')}, ` +
      `@nestjs/core ${packageVersion('@nestjs/core', NEST12_DIR)}` +
      (NEST12_DIR
        ? ' (BENCH_NEST=12: the bare controllers and nestjs-mcp; the others on Nest 11), '
        : ', ') +
      `@rekog/mcp-nest ${packageVersion('@rekog/mcp-nest')}.`,
    `- Command: \`${commandLine()}\`.`,
    `- Method: each server is its own child process on 127.0.0.1 (ephemeral port). The load generator ` +
      `(autocannon, ${CONNECTIONS} connections, keep-alive, in this process) runs a ${WARMUP_SECONDS} s ` +
      `warm-up per server, then ${ROUNDS} rounds of one ${SECONDS} s pass per server, the order rotated ` +
      `each round. Server CPU is \`process.cpuUsage()\` (user + system) measured inside the child around ` +
      `each pass, divided by the answers received. req/s and CPU are totals over the passes. Every answer ` +
      `(warm-up included) was compared byte for byte with the answer to a probe that was checked ` +
      `structurally (JSON-RPC id, one text block equal to the argument, \`resultType: "complete"\`); all ` +
      `servers answer the same bytes.`,
    `- The load generator shares the 2 CPUs with the server, so req/s is bounded by both; CPU per ` +
      `request is the steadier comparison.`,
    '',
    '| Server | Wire | req/s | vs bare | server CPU µs/req | vs bare | answers verified | wrong / errors |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...summaries.map((s) => {
      const baseline = baselineOf(s);
      return (
        `| ${s.spec.label} | ${s.wire} | ${s.reqPerSec.toFixed(0)} | ${ratio(s.reqPerSec, baseline?.reqPerSec)} ` +
        `| ${s.cpuUsPerReq.toFixed(0)} | ${ratio(s.cpuUsPerReq, baseline?.cpuUsPerReq)} | ${s.verified} ` +
        `| ${s.mismatches} / ${s.errors} |`
      );
    }),
    '',
    '"vs bare" compares each row with the bare Nest controller on the same HTTP platform: the Fastify ' +
      'rows with the bare Fastify controller, every other row with the bare Express one.',
    '',
    '![Server CPU per request and requests per second](results.svg)',
    '',
    ...targetRows(summaries),
    ...beforeRows(summaries),
    '## Per pass',
    '',
    `req/s and server CPU µs/request of each ${SECONDS} s pass, by round.`,
    '',
    `| Server | ${Array.from({ length: ROUNDS }, (_, i) => `round ${i + 1}`).join(' | ')} |`,
    `|---|${'---:|'.repeat(ROUNDS)}`,
    ...summaries.map(
      (s) =>
        `| ${s.spec.label} | ${s.passes
          .slice()
          .sort((a, b) => a.round - b.round)
          .map(
            (p) =>
              `${(p.requests / p.seconds).toFixed(0)} / ${(p.cpuUs / p.requests).toFixed(0)} µs`,
          )
          .join(' | ')} |`,
    ),
    '',
    '## The servers',
    '',
    '1. **bare Nest controller**: `@Post("mcp")` on Express, the body parsed by Nest, returning the ' +
      'echo result object (same bytes as the others). No MCP processing at all: the floor. The same ' +
      'controller on `FastifyAdapter` is the floor of the Fastify rows.',
    '2. **SDK v2 Server**: low-level `Server` with `tools/list` and `tools/call` handlers, ' +
      '`createMcpHandler` (one `Server` per request) + `toNodeHandler` on `node:http`.',
    '3. **SDK v2 McpServer**: `registerTool("echo")` with a zod schema, otherwise as 2.',
    '4. **@rekog/mcp-nest**: `McpStrategy` + `@McpController` / `@Tool` (zod), ' +
      '`StreamableHttpTransport({ statefulMode: false, enableJsonResponse: true, protocol: "modern-only" })`; ' +
      'it serves 2026-07-28 through the same SDK v2 handler.',
    '5. **nestjs-mcp, Express**: `McpModule.forRoot` + one `@McpTool` with a raw JSON Schema `inputSchema`.',
    '6. **nestjs-mcp, Fastify**: the same app on `FastifyAdapter`.',
    '7. **nestjs-mcp, DTO + ValidationPipe + guard**: class-validator DTO, global `ValidationPipe` ' +
      '(`transform`, `whitelist`) and a global guard reading `Authorization`.',
    '8. **nestjs-mcp, sealed flow round 2**: a `FRAMEWORK_PROTECTED` tool that asks once; the bench sends ' +
      'round 1 once, then the same round 2 (`inputResponses` + the same sealed `requestState`) with a ' +
      'fresh JSON-RPC id per request (the tool is not single-use). Each request opens and checks the ' +
      'sealed state.',
    '',
    'Named in `BENCH_ONLY` only, to break the sealed round down: `declared` (an echo tool declaring a form ' +
      'request, `requestState` none, every call carrying the same `inputResponses`: the input steps alone) and ' +
      '`unsealed` (the same as a `FRAMEWORK_PROTECTED` tool with no state to open: it binds nothing, as the ' +
      'binding is computed only to open or seal a state), and `aead-floor` (server 5 whose handler also opens one AES-256-GCM token with node:crypto, ' +
      "sealed at startup the size of the sealed flow's state: the least any authenticated-encrypted state costs).",
    '',
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY?.split(',').map((key) => key.trim());
  const chosen = only
    ? SERVERS.filter((spec) => only.includes(spec.key))
    : SERVERS.filter((spec) => !spec.extra);
  const specs = BEFORE_TREE
    ? chosen.flatMap((spec) => (spec.file === 'nestjs-mcp.ts' ? [spec, beforeOf(spec)] : [spec]))
    : chosen;
  const started = new Date();
  const wallStart = process.hrtime.bigint();
  const running: Running[] = [];
  try {
    for (const spec of specs) {
      running.push(await start(spec));
      console.log(`started ${spec.key} on port ${running[running.length - 1].port}`);
    }
    const warmupRequests = new Map<string, number>();
    const passes = new Map<string, Pass[]>(running.map((server) => [server.spec.key, []]));
    let wrong = 0;
    for (const server of running) {
      const warm = await load(server, WARMUP_SECONDS);
      wrong += warm.mismatches;
      if (warm.firstMismatch) console.error(`  ${server.spec.key} warm-up: ${warm.firstMismatch}`);
      warmupRequests.set(server.spec.key, warm.requests);
      console.log(
        `warmed up ${server.spec.key}: ${(warm.requests / WARMUP_SECONDS).toFixed(0)} req/s`,
      );
    }
    for (let round = 1; round <= ROUNDS; round++) {
      const order = running.map((_, i) => running[(i + round - 1) % running.length]);
      for (const server of order) {
        const pass = await measuredPass(server, round);
        passes.get(server.spec.key)?.push(pass);
        console.log(
          `round ${round} ${server.spec.key}: ${(pass.requests / pass.seconds).toFixed(0)} req/s, ` +
            `${(pass.cpuUs / pass.requests).toFixed(0)} µs CPU/req`,
        );
      }
    }
    const summaries = running.map((server) =>
      summarize(
        server,
        passes.get(server.spec.key) ?? [],
        warmupRequests.get(server.spec.key) ?? 0,
      ),
    );
    wrong += summaries.reduce((sum, s) => sum + s.mismatches, 0);
    const wallSeconds = Number(process.hrtime.bigint() - wallStart) / 1e9;
    mkdirSync(OUT_DIR, { recursive: true });
    writeFileSync(join(OUT_DIR, 'RESULTS.md'), report(summaries, started, wallSeconds));
    writeFileSync(join(OUT_DIR, 'results.svg'), chart(summaries));
    console.log(`wrote ${join(OUT_DIR, 'RESULTS.md')} and ${join(OUT_DIR, 'results.svg')}`);
    if (wrong > 0) {
      console.error(`${wrong} answers differed from the expected bytes`);
      process.exitCode = 1;
    }
  } finally {
    await Promise.all(
      running.map(
        (server) =>
          new Promise<void>((resolve) => {
            if (server.child.exitCode !== null) return resolve();
            server.child.once('exit', () => resolve());
            command(server.child, { type: 'exit' });
          }),
      ),
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
