/**
 * State handles: heap held by MemoryStateHandleRepository per record (10,000 records, the default
 * bound, each with a 200-byte draft as the sample's approve_expense keeps), and the time of one
 * redemption (the atomic redeem-and-replace) on memory and on a private local redis-server.
 *
 * Run: npm run bench:handles
 */
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { MemoryStateHandleRepository } from '../src/request-state/stores/handles/memory-state-handle.repository';
import { RedisStateHandleRepository } from '../src/request-state/stores/handles/redis-state-handle.repository';
import type { StateHandleRepository } from '../src/request-state/stores/handles/state-handle-repository.interface';
import { startRedisServer } from '../test/utils/redis-server';

const RECORDS = 10_000;
const REDEMPTIONS = 5_000;
const OWNERS = 100;
const DATA = JSON.stringify({ amount: '120.50', description: 'x'.repeat(160), asked: 1 });

function collect(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

const handle = (): string => randomBytes(32).toString('base64url');

async function memoryPerRecord(): Promise<void> {
  const handles = Array.from({ length: RECORDS }, handle);
  // The data string is built per record, as a decoded request body would be.
  const datas = handles.map(() => `${DATA} `.trim());
  // 100 owners of 100 records each (the default share), in a repository twice the size so that
  // the shares never shrink: what is measured is the records, not a refusal.
  const repository = new MemoryStateHandleRepository({
    maxEntries: 2 * RECORDS,
    maxEntriesPerOwner: RECORDS / OWNERS,
    sweepIntervalMs: 0,
  });
  const expiresAt = Date.now() + 900_000;
  const before = collect();
  for (const [index, key] of handles.entries())
    await repository.put(key, {
      binding: handle(),
      data: datas[index],
      expiresAt: expiresAt + index,
      round: 1,
      owner: `owner-${index % OWNERS}`,
    });
  const after = collect();
  // Handles and data exist before the baseline; the binding (a 43-character digest) is counted.
  const perRecord = (after - before) / RECORDS;
  console.log(
    `memory: ${RECORDS.toLocaleString('en-US')} records with ${DATA.length}-byte data: heap +${((after - before) / 1_048_576).toFixed(1)} MiB, ` +
      `${perRecord.toFixed(0)} bytes per record besides its data (Node ${process.versions.node})`,
  );
  repository.close();
}

async function redemptionTime(name: string, repository: StateHandleRepository): Promise<void> {
  let current = handle();
  await repository.put(current, {
    binding: 'b',
    data: DATA,
    expiresAt: Date.now() + 900_000,
    round: 1,
  });
  const started = process.hrtime.bigint();
  for (let i = 0; i < REDEMPTIONS; i++) {
    const next = handle();
    if (!(await repository.redeem(current, 'b', next))) throw new Error('not redeemed');
    current = next;
  }
  const micros = Number(process.hrtime.bigint() - started) / 1_000 / REDEMPTIONS;
  console.log(
    `${name}: ${micros.toFixed(1)} µs per redemption (sequential, ${REDEMPTIONS} rounds)`,
  );
}

async function main(): Promise<void> {
  await memoryPerRecord();
  const memory = new MemoryStateHandleRepository();
  await redemptionTime('memory', memory);
  memory.close();
  const server = await startRedisServer();
  const client = new Redis(server.url);
  try {
    await redemptionTime('redis (loopback)', new RedisStateHandleRepository(client));
  } finally {
    await client.quit();
    await server.close();
  }
}

void main();
