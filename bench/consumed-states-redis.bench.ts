/**
 * RedisConsumedStateStore on a private redis-server: Redis memory per consumed single-use state and
 * how many presentations per second one client records, 50 at a time, under ids made exactly as the
 * state interceptor makes them (base64url SHA-256 of a token), each with a 15-minute expiry.
 *
 * Run: npm run bench:consumed:redis   (needs redis-server, as the Redis tests do)
 */
import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisConsumedStateStore } from '../src/request-state/stores/one-time/redis-consumed-state.store';
import { startRedisServer } from '../test/utils/redis-server';

const ENTRIES = 100_000;
const CONCURRENCY = 50;

async function usedMemory(client: Redis): Promise<number> {
  const info = await client.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1]);
}

async function main(): Promise<void> {
  const server = await startRedisServer();
  const client = new Redis(server.url);
  try {
    const store = new RedisConsumedStateStore(client);
    const ids = Array.from({ length: ENTRIES }, () =>
      createHash('sha256')
        .update(randomBytes(24).toString('base64url'), 'utf8')
        .digest('base64url'),
    );
    const expiresAt = Date.now() + 900_000;
    const before = await usedMemory(client);
    const started = process.hrtime.bigint();
    for (let next = 0; next < ENTRIES; next += CONCURRENCY) {
      const answers = await Promise.all(
        ids
          .slice(next, next + CONCURRENCY)
          .map((id, index) => store.consume(id, expiresAt + index)),
      );
      if (answers.some((answer) => answer !== true)) throw new Error('refused');
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const perKey = ((await usedMemory(client)) - before) / ENTRIES;
    console.log(
      `${ENTRIES.toLocaleString('en-US')} consumed states on Redis ${(await client.info('server')).match(/redis_version:(\S+)/)?.[1]}: ` +
        `${perKey.toFixed(0)} bytes of Redis memory each (1,000,000 ≈ ${((perKey * 1_000_000) / 1_048_576).toFixed(0)} MiB); ` +
        `${Math.round(ENTRIES / seconds).toLocaleString('en-US')} presentations/s from one client, ${CONCURRENCY} in flight`,
    );
  } finally {
    await client.quit();
    await server.close();
  }
}

void main();
