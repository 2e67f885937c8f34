import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A real `redis-server` (Debian's package, installed by `.ci/run`) on 127.0.0.1, owned by one test file. */
export interface RedisServerHandle {
  readonly port: number;
  readonly url: string;
  /** Stops the server (SIGTERM) and waits for it to exit; the port stays reserved for `start`. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** Stops it for good and removes its working directory. */
  close(): Promise<void>;
}

const BINARY = process.env.REDIS_SERVER_BIN ?? 'redis-server';
const STARTUP_TIMEOUT_MS = 10_000;

function freePort(): Promise<number> {
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

function ping(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) {
        socket.destroy();
        done(reply.startsWith('+PONG'));
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
export async function startRedisServer(): Promise<RedisServerHandle> {
  const port = await freePort();
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
            `could not start ${BINARY} (${error.message}); install it with "apt-get install redis-server" (.ci/run does)`,
          ),
        ),
      );
      spawned.once('exit', (code) => fail(new Error(`redis-server exited (${code}):\n${output}`)));
    });
    failed.catch(() => undefined);
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    while (!(await Promise.race([ping(port), failed]))) {
      if (Date.now() > deadline)
        throw new Error(`redis-server did not answer on ${port}:\n${output}`);
      await new Promise((done) => setTimeout(done, 50));
    }
  };

  const stop = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((done) => running.once('exit', done));
    running.kill('SIGTERM');
    await exited;
  };

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    close: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
