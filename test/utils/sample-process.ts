import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { SampleEnv } from '../fixtures/sample-app';
import type { AdapterName } from './bootstrap';
import { httpGet, httpPost } from './raw-http';

const ROOT = resolve(__dirname, '../..');
const SAMPLE_MAIN = join(ROOT, 'dist-sample/sample-app/src/main.js');
const STARTUP_TIMEOUT_MS = 20_000;

/**
 * Builds the sample app unless dist-sample/ is newer than everything it is built from
 * (scripts/build-sample.mjs, which the conformance runner uses too).
 */
export async function ensureSampleBuilt(): Promise<void> {
  const child = spawn(process.execPath, [join(ROOT, 'scripts/build-sample.mjs')], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((done, fail) => {
    child.once('error', fail);
    child.once('exit', done);
  });
  if (code !== 0) throw new Error(`building the sample app failed (${code}):\n${output}`);
}

/**
 * The sample app's main.js for this run: dist-sample/ on Nest 11; on the Nest 12 leg
 * (`npm run test:e2e:nest12`), a copy inside the Nest 12 install, where the child process resolves
 * Nest 12 as the tests do (`scripts/nest12.mjs sample` makes and checks the copy, once per suite).
 */
function sampleMain(): string {
  if (!process.env.NESTJS_MCP_NEST12_DIR) return SAMPLE_MAIN;
  nest12Main ??= copyForNest12();
  return nest12Main;
}
let nest12Main: string | undefined;

function copyForNest12(): string {
  const copy = spawnSync(process.execPath, [join(ROOT, 'scripts/nest12.mjs'), 'sample'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (copy.status !== 0) throw new Error(`scripts/nest12.mjs sample failed:\n${copy.stderr}`);
  return copy.stdout.trim().split('\n').pop() as string;
}

/** What `GET /admin/health` reports. */
export interface SampleHealth {
  eventLoopDelayMs: { max: number; p99: number; mean: number };
  /** CPU time since the process started (user + system, all threads), ms. */
  cpuMs: number;
  rssBytes: number;
  /** The most RSS the process has had since the last reset (`resetHealth`, on Linux). */
  maxRssBytes: number;
  heapUsedBytes: number;
}

/** The built sample app running as a child process. */
export interface SampleProcess {
  /** The MCP endpoint URL. */
  readonly url: URL;
  /** Everything the process wrote so far. */
  log(): string;
  /** Starts a new event-loop delay window (`POST /admin/health/reset`). */
  resetHealth(): Promise<void>;
  health(): Promise<SampleHealth>;
  /**
   * SIGTERM (SIGKILL after 5 s), resolved once the process has exited; rejects with its log when
   * it had exited on its own before.
   */
  stop(): Promise<void>;
  /** SIGKILL, as a crash or an OOM kill ends a process; resolved once it has exited. */
  kill(): Promise<void>;
  /**
   * SIGTERM, as an orchestrator stops a process, and nothing else (no SIGKILL after a while):
   * resolved with how it ended once it has exited by itself (Nest's shutdown hooks raise the
   * signal again once the app is closed, so a clean end is `{ signal: 'SIGTERM' }`).
   */
  terminate(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Extra environment of a child sample app (besides the variables {@link SampleEnv} names). */
export type SampleProcessEnv = SampleEnv & { MCP_ADMIN_TOKEN: string };

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(killer);
      done();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Starts `node dist-sample/sample-app/src/main.js` (see {@link sampleMain}) on a free port (PORT=0, the port read from its
 * "listening on" log line) with `env`, and resolves once its admin health route answers.
 */
export async function startSampleProcess(
  adapter: AdapterName,
  env: SampleProcessEnv,
): Promise<SampleProcess> {
  // On the Nest 12 leg Jest runs on Node >= 24.9; the sample runs on the project's Node (the
  // launcher's, scripts/nest12.mjs), as in the conformance leg.
  const node = process.env.NESTJS_MCP_SAMPLE_NODE ?? process.execPath;
  const child = spawn(node, [sampleMain()], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: '0', SAMPLE_ADAPTER: adapter, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const listening = new Promise<URL>((done, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`sample app did not start within ${STARTUP_TIMEOUT_MS} ms:\n${log}`)),
      STARTUP_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(log);
      if (match) {
        clearTimeout(timer);
        done(new URL(match[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`sample app exited with code ${code}:\n${log}`));
    });
  });
  let url: URL;
  try {
    url = await listening;
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  let stopping = false;
  let unexpectedExit: string | undefined;
  child.once('exit', (code, signal) => {
    if (!stopping) unexpectedExit = signal ?? `code ${code}`;
  });
  const admin = { Authorization: `Bearer ${env.MCP_ADMIN_TOKEN}` };
  const sample: SampleProcess = {
    url,
    log: () => log,
    async resetHealth() {
      const response = await httpPost(new URL('/admin/health/reset', url), admin, '');
      if (response.status !== 204) throw new Error(`health reset answered ${response.status}`);
    },
    async health() {
      const response = await httpGet(new URL('/admin/health', url), admin);
      if (response.status !== 200) throw new Error(`health answered ${response.status}`);
      return JSON.parse(response.text) as SampleHealth;
    },
    async stop() {
      stopping = true;
      await stopChild(child);
      // A crash mid-suite shows up as refused connections; say why here.
      if (unexpectedExit)
        throw new Error(`sample app exited on its own (${unexpectedExit}):\n${log.slice(-3_000)}`);
    },
    terminate() {
      stopping = true;
      if (child.exitCode !== null || child.signalCode !== null)
        return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
        child.once('exit', (code, signal) => done({ code, signal })),
      );
      child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      stopping = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGKILL');
      await exited;
    },
  };
  try {
    await sample.health();
  } catch (error) {
    await sample.stop();
    throw error;
  }
  return sample;
}
