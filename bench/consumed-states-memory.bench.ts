/**
 * Heap held by MemoryConsumedStateStore per consumed single-use state: records 100,000 states
 * under ids made exactly as the state interceptor makes them (base64url SHA-256 of a token), from
 * 1,000 owners (digests of partitions, as the interceptor names them) with the share index, and
 * reports the heap growth after a full GC, per entry; then moves the store's clock past every
 * expiry and reports what the sweep leaves (entries and heap against the starting point).
 *
 * Run: npm run bench:consumed
 */
import { createHash, randomBytes } from 'node:crypto';
import { MemoryConsumedStateStore } from '../src/request-state/stores/one-time/memory-consumed-state.store';

const ENTRIES = 100_000;
const OWNERS = 1_000;

function collect(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

async function main(): Promise<void> {
  // Ids are made first, so only what the store itself keeps alive counts.
  const tokens = Array.from({ length: ENTRIES }, () => randomBytes(24).toString('base64url'));
  const owners = Array.from({ length: OWNERS }, (_, index) =>
    createHash('sha256').update(`partition-${index}`).digest('base64url'),
  );
  let clock = Date.now();
  const store = new MemoryConsumedStateStore({
    // Twice the entries, so the store stays below the shrinking shares' three-quarters.
    maxEntries: 2 * ENTRIES,
    sweepIntervalMs: 0,
    now: () => clock,
  });
  const expiresAt = clock + 900_000;
  const before = collect();
  for (const [index, token] of tokens.entries()) {
    const id = createHash('sha256').update(token, 'utf8').digest('base64url');
    // Distinct expiries, as real flows have: each one is its own heap number.
    if (!(await store.consume(id, expiresAt + index, owners[index % OWNERS])))
      throw new Error('refused');
  }
  const after = collect();
  const perEntry = (after - before) / ENTRIES;
  console.log(
    `${ENTRIES.toLocaleString('en-US')} consumed states: heap +${((after - before) / 1_048_576).toFixed(1)} MiB, ` +
      `${perEntry.toFixed(0)} bytes per entry (Node ${process.versions.node}); ` +
      `1,000,000 entries ≈ ${((perEntry * 1_000_000) / 1_048_576).toFixed(0)} MiB`,
  );
  clock = expiresAt + ENTRIES;
  const removed = store.sweep();
  const swept = collect();
  console.log(
    `after every expiry: ${removed.toLocaleString('en-US')} evicted, ${store.size} left, ` +
      `heap ${swept - before >= 0 ? '+' : ''}${((swept - before) / 1_048_576).toFixed(1)} MiB against the start`,
  );
  store.close();
}

void main();
