import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep, until } from './wait';

/** A real `redis-server` (Debian's package, installed by `.ci/run`) on 127.0.0.1, owned by one test file. */
export interface RedisServerHandle {
  readonly port: number;
  readonly url: string;
  /** Stops the server (SIGTERM, or `signal`) and waits for it to exit; the port stays reserved for `start`. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** Sends `signal` to the server without waiting: `SIGSTOP` pauses it (commands time out), `SIGCONT` resumes it. */
  signal(signal: NodeJS.Signals): void;
  /** Stops it for good and removes its working directory. */
  close(): Promise<void>;
}

export const BINARY = process.env.REDIS_SERVER_BIN ?? 'redis-server';
const STARTUP_TIMEOUT_MS = 10_000;

/** A free loopback port (another process may still take it before it is bound). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

/**
 * Whether the redis-server process `pid` answers on `port`: parallel test files each start their
 * own, so a server that answers there may be another file's (when two picked the same free port).
 */
export function answersAs(port: number, pid: number | undefined): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('INFO server\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      const line = /\r\nprocess_id:(\d+)\r\n/.exec(reply);
      if (line || reply.startsWith('-')) {
        socket.destroy();
        done(line !== null && Number(line[1]) === pid);
      }
    });
    socket.once('timeout', () => (socket.destroy(), done(false)));
    socket.once('error', () => done(false));
  });
}

/**
 * Starts a private `redis-server` (no persistence) on a free loopback port. Fails, never skips,
 * when the binary is missing: `.ci/run` installs it from Debian's packages.
 */
export async function startRedisServer(
  options: { args?: (port: number) => string[] } = {},
): Promise<RedisServerHandle> {
  let port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'nestjs-mcp-redis-'));
  let child: ChildProcess | undefined;

  const start = async (): Promise<void> => {
    let output = '';
    const spawned = spawn(
      BINARY,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        ...(options.args?.(port) ?? []),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = spawned;
    spawned.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    spawned.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const failed = new Promise<never>((_, fail) => {
      spawned.once('error', (error) =>
        fail(
          new Error(
            `could not start ${BINARY} (${error.message}); install it with "sudo apt-get install -y redis-server" (npm test does when it may: scripts/system-packages.mjs)`,
          ),
        ),
      );
      spawned.once('exit', (code) => fail(new Error(`redis-server exited (${code}):\n${output}`)));
    });
    failed.catch(() => undefined);
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    while (!(await Promise.race([answersAs(port, spawned.pid), failed]))) {
      if (Date.now() > deadline)
        throw new Error(`redis-server did not answer on ${port}:\n${output}`);
      await sleep(50);
    }
  };

  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<void> => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((done) => running.once('exit', done));
    running.kill(signal);
    // A paused server handles its signals once it runs again.
    if (signal !== 'SIGKILL') running.kill('SIGCONT');
    await exited;
  };

  // Another process may take the free port before this server binds it: pick another.
  for (let attempt = 1; ; attempt++) {
    try {
      await start();
      break;
    } catch (error) {
      if (attempt === 5 || !/Address already in use/.test(String(error))) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
      port = await freePort();
    }
  }
  return {
    get port() {
      return port;
    },
    get url() {
      return `redis://127.0.0.1:${port}`;
    },
    stop,
    start,
    signal: (signal) => {
      child?.kill(signal);
    },
    close: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The part of an ioredis client the helpers below need. */
interface RedisClientLike {
  readonly status: string;
  quit(): Promise<unknown>;
  disconnect(): void;
}

/** Resolves with `client` once it is ready (connected and past its handshake). */
export async function redisReady<C extends { readonly status: string }>(
  client: C,
  timeoutMs = 10_000,
): Promise<C> {
  await until(() => client.status === 'ready', { what: 'the Redis client to be ready', timeoutMs });
  return client;
}

/**
 * Quits a connected client, so its socket is closed before Jest ends; drops any other. With
 * `whenReady`, a client still reconnecting is waited for first (quitting one would leave ioredis's
 * disconnect timer behind).
 */
export async function closeRedisClient(
  client: RedisClientLike | undefined,
  { whenReady = false }: { whenReady?: boolean } = {},
): Promise<void> {
  if (!client) return;
  if (whenReady && client.status !== 'end') await redisReady(client);
  if (client.status === 'ready') await client.quit();
  else if (client.status !== 'end') client.disconnect();
}
