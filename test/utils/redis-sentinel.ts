import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import {
  answersAs,
  BINARY,
  freePort,
  startRedisServer,
  type RedisServerHandle,
} from './redis-server';
import { until } from './wait';

/** A master, one replica and three sentinels watching them, on 127.0.0.1, owned by one test file. */
export interface SentinelSetHandle {
  readonly name: string;
  readonly master: RedisServerHandle;
  readonly replica: RedisServerHandle;
  /** The sentinels, `127.0.0.1:port` each. */
  readonly sentinels: string[];
  /** The master the sentinels name now (`host:port`). */
  currentMaster(): Promise<string>;
  close(): Promise<void>;
}

/**
 * Starts a Sentinel set that fails the master over fast: down after 1 s, quorum 2 of 3. Resolves
 * once the sentinels know the replica and each other (`SENTINEL CKQUORUM` answers OK).
 */
export async function startSentinelSet(name = 'mcp'): Promise<SentinelSetHandle> {
  const master = await startRedisServer();
  const replica = await startRedisServer({
    args: () => ['--replicaof', '127.0.0.1', String(master.port)],
  });
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  const ports: number[] = [];
  for (let index = 0; index < 3; index++) {
    const dir = mkdtempSync(join(tmpdir(), 'nestjs-mcp-sentinel-'));
    dirs.push(dir);
    const port = await freePort();
    const conf = join(dir, 'sentinel.conf');
    writeFileSync(
      conf,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${name} 127.0.0.1 ${master.port} 2`,
        `sentinel down-after-milliseconds ${name} 1000`,
        `sentinel failover-timeout ${name} 3000`,
        `sentinel parallel-syncs ${name} 1`,
        '',
      ].join('\n'),
    );
    const child = spawn(BINARY, [conf, '--sentinel'], { stdio: 'ignore' });
    children.push(child);
    ports.push(port);
    await until(() => answersAs(port, child.pid), {
      what: `sentinel ${index + 1} to answer`,
      timeoutMs: 10_000,
    });
  }
  const ask = async <T>(command: string[]): Promise<T> => {
    const client = new Redis({ host: '127.0.0.1', port: ports[0], lazyConnect: true });
    try {
      await client.connect();
      return (await client.call(command[0], ...command.slice(1))) as T;
    } finally {
      client.disconnect();
    }
  };
  await until(
    async () => {
      const replicas = await ask<string[][]>(['SENTINEL', 'REPLICAS', name]);
      const quorum = await ask<string>(['SENTINEL', 'CKQUORUM', name]).catch(() => '');
      return replicas.length === 1 && /^OK 3 usable/.test(quorum);
    },
    { done: Boolean, what: 'the sentinels to know the replica and each other', timeoutMs: 20_000 },
  );
  return {
    name,
    master,
    replica,
    sentinels: ports.map((port) => `127.0.0.1:${port}`),
    currentMaster: async () =>
      (await ask<string[]>(['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name])).join(':'),
    close: async () => {
      for (const child of children) {
        if (child.exitCode !== null) continue;
        const exited = new Promise((done) => child.once('exit', done));
        child.kill('SIGTERM');
        await exited;
      }
      await Promise.all([master.close(), replica.close()]);
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}
