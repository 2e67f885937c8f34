import type { AdapterName } from './bootstrap';
import { startRedisServer, type RedisServerHandle } from './redis-server';
import {
  ensureSampleBuilt,
  startSampleProcess,
  type SampleProcess,
  type SampleProcessEnv,
} from './sample-process';

/** How {@link SampleFleet.close} ends the processes still running. */
export type SampleFleetEnd =
  /** SIGTERM, then SIGKILL after 5 s; rejects with the log of a process that had crashed. */
  | 'stop'
  /** SIGKILL: for tests that end processes themselves, or whose processes drain for long. */
  | 'kill';

/** Options of a {@link SampleFleet}. */
export interface SampleFleetOptions {
  /** Whether the fleet has a redis-server of its own ({@link SampleFleet.onRedis}); `true` by default. */
  redis?: boolean;
  /** How the processes still running end with the fleet; `'stop'` by default. */
  end?: SampleFleetEnd;
}

/**
 * The built sample app's processes a block of tests starts (`npm start`, as operators run it),
 * with the redis-server they share. `open()` in the block's `beforeAll` builds the sample (unless
 * it is up to date) and starts Redis; `close()` in its `afterAll` ends every process still
 * running, then Redis, so no instance outlives the store it writes to.
 */
export class SampleFleet {
  private redisServer: RedisServerHandle | undefined;
  private readonly running = new Set<SampleProcess>();
  private readonly withRedis: boolean;
  private readonly end: SampleFleetEnd;

  constructor(options: SampleFleetOptions = {}) {
    this.withRedis = options.redis ?? true;
    this.end = options.end ?? 'stop';
  }

  /** Builds the sample and starts the fleet's Redis: minutes on a clean checkout. */
  async open(): Promise<void> {
    await ensureSampleBuilt();
    if (this.withRedis) this.redisServer = await startRedisServer();
  }

  /** The fleet's redis-server (after {@link open}). */
  get redis(): RedisServerHandle {
    if (!this.redisServer) throw new Error('the sample fleet has no Redis (yet): open() it first');
    return this.redisServer;
  }

  /** The variables that put a sample on the fleet's Redis (`MCP_STORE=redis`, `REDIS_URL`). */
  get onRedis(): { MCP_STORE: string; REDIS_URL: string } {
    return { MCP_STORE: 'redis', REDIS_URL: this.redis.url };
  }

  /** Starts the built sample on `adapter` with `env`; it ends with the fleet unless {@link forget}. */
  async start(adapter: AdapterName, env: SampleProcessEnv): Promise<SampleProcess> {
    const instance = await startSampleProcess(adapter, env);
    this.running.add(instance);
    return instance;
  }

  /** Leaves `instance` out of {@link close}: the test has ended it for good. */
  forget(instance: SampleProcess): void {
    this.running.delete(instance);
  }

  /** Ends every process still running (see {@link SampleFleetEnd}), then stops Redis. */
  async close(): Promise<void> {
    const instances = [...this.running];
    this.running.clear();
    const ended = await Promise.allSettled(
      instances.map((instance) => (this.end === 'kill' ? instance.kill() : instance.stop())),
    );
    await this.redisServer?.close();
    const failed = ended.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  }
}

/** What a fleet adds to each instance's environment in {@link sampleInstancesForSuite}. */
export interface SampleInstanceEnv {
  MCP_STORE: string;
  REDIS_URL: string;
  /** `<prefix>-a`, `<prefix>-b`, …: how the instance names itself to the fleet. */
  MCP_INSTANCE_NAME: string;
}

/**
 * Sample instances named `names` on one Redis for the tests of the block that calls this: the
 * fleet opened and the instances started one after another before the block's first test (within
 * `timeoutMs`), ended after its last. `envOf` gives an instance's environment from what the fleet
 * adds to it. The array fills in as they start.
 */
export function sampleInstancesForSuite(
  adapter: AdapterName,
  prefix: string,
  envOf: (fleet: SampleInstanceEnv) => SampleProcessEnv,
  { names = ['a', 'b'], timeoutMs = 120_000 }: { names?: string[]; timeoutMs?: number } = {},
): SampleProcess[] {
  const samples = new SampleFleet();
  const instances: SampleProcess[] = [];
  beforeAll(async () => {
    await samples.open();
    for (const name of names)
      instances.push(
        await samples.start(
          adapter,
          envOf({ ...samples.onRedis, MCP_INSTANCE_NAME: `${prefix}-${name}` }),
        ),
      );
  }, timeoutMs);
  afterAll(() => samples.close());
  return instances;
}
