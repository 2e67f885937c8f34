import { spawn } from 'node:child_process';
import { Cluster } from 'ioredis';
import { freePort, startRedisServer, type RedisServerHandle } from './redis-server';
import { until } from './wait';

/** The Redis CLI from Debian's package (beside redis-server). */
const CLI = process.env.REDIS_CLI_BIN ?? 'redis-cli';

/** A Redis Cluster of three masters (no replicas) on 127.0.0.1, owned by one test file. */
export interface RedisClusterHandle {
  readonly masters: readonly RedisServerHandle[];
  /** The nodes, `127.0.0.1:port` each (what `redis.cluster.nodes` and `REDIS_CLUSTER_NODES` take). */
  readonly nodes: string[];
  /** A new ioredis `Cluster` on it, as an application would make one; closed with the cluster. */
  client(): Cluster;
  close(): Promise<void>;
}

function run(args: string[]): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(CLI, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', (error) =>
      fail(new Error(`could not run ${CLI} (${error.message}); it comes with redis-server`)),
    );
    child.once('exit', (code) =>
      code === 0 ? done(output) : fail(new Error(`${CLI} ${args.join(' ')} (${code}):\n${output}`)),
    );
  });
}

/**
 * Starts three `redis-server --cluster-enabled yes` (each its cluster bus on a free port of its
 * own) and joins them with `redis-cli --cluster create`, the 16,384 slots split between them.
 * Resolves once every node reports `cluster_state:ok`.
 */
export async function startRedisCluster(): Promise<RedisClusterHandle> {
  const masters: RedisServerHandle[] = [];
  for (let index = 0; index < 3; index++) {
    const busPort = await freePort();
    masters.push(
      await startRedisServer({
        args: () => [
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          'nodes.conf',
          '--cluster-node-timeout',
          '2000',
          '--cluster-port',
          String(busPort),
        ],
      }),
    );
  }
  const nodes = masters.map((master) => `127.0.0.1:${master.port}`);
  const clients: Cluster[] = [];
  const close = async () => {
    for (const client of clients) client.disconnect();
    await Promise.all(masters.map((master) => master.close()));
  };
  try {
    await run(['--cluster', 'create', ...nodes, '--cluster-yes']);
    for (const master of masters)
      await until(
        async () =>
          (await run(['-p', String(master.port), 'cluster', 'info'])).includes('cluster_state:ok'),
        { what: `cluster_state:ok on ${master.port}`, timeoutMs: 20_000 },
      );
  } catch (error) {
    await close();
    throw error;
  }
  return {
    masters,
    nodes,
    client: () => {
      const client = new Cluster(
        masters.map((master) => ({ host: '127.0.0.1', port: master.port })),
      );
      client.on('error', () => undefined);
      clients.push(client);
      return client;
    },
    close,
  };
}
