import { testRunnerGlobals } from './test-runner-globals';

/** A store of versioned records, as the replace rules see it. @internal */
export interface VersionedRecordStore<R> {
  get(id: string): Promise<R | undefined>;
  replace(next: R, expectedVersion: number): Promise<boolean>;
}

/**
 * The optimistic replace every versioned store keeps, on a record stored at version 1 under `id`:
 * `next` (version 2) replaces it from version 1 and is what is read back; a writer still holding
 * version 1 (`stale`, version 2) then loses, and so does a version that skips ahead.
 * @internal
 */
export async function expectReplaceFromReadVersion<R extends { version: number }>(
  store: VersionedRecordStore<R>,
  id: string,
  next: R,
  stale: R,
): Promise<void> {
  const { expect } = testRunnerGlobals();
  expect(await store.replace(next, 1)).toBe(true);
  expect(await store.get(id)).toEqual(next);
  expect(await store.replace(stale, 1)).toBe(false);
  expect(await store.replace({ ...next, version: 4 }, 2)).toBe(false);
  expect(await store.get(id)).toEqual(next);
}

/**
 * Ten writers replace the record stored at version 1 under `id` at once, each with `written(n)`:
 * exactly one wins, and its record is what is read back.
 * @internal
 */
export async function expectOneConcurrentWriterWins<R>(
  store: VersionedRecordStore<R>,
  id: string,
  written: (writer: number) => R,
): Promise<void> {
  const { expect } = testRunnerGlobals();
  const outcomes = await Promise.all(
    Array.from({ length: 10 }, (_, writer) => store.replace(written(writer), 1)),
  );
  expect(outcomes.filter(Boolean)).toHaveLength(1);
  expect(await store.get(id)).toEqual(written(outcomes.indexOf(true)));
}
