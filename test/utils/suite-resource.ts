/**
 * Something the tests of the block that calls this (a file, a `describe`) share: `open` runs in a
 * `beforeAll` declared here, `close` in an `afterAll` declared here. Jest runs a block's hooks in
 * the order they are declared: what must be ready first is opened in an earlier `beforeAll` (or an
 * earlier call), and what must close before this (a client of it) closes in an `afterAll`
 * declared earlier, or in a nested block. Returns the way to reach it from a test or a later hook.
 */
export function forSuite<T>(open: () => T | Promise<T>, close: (resource: T) => unknown): () => T {
  let opened: { resource: T } | undefined;
  beforeAll(async () => {
    opened = { resource: await open() };
  });
  afterAll(async () => {
    if (opened) await close(opened.resource);
  });
  return () => {
    if (!opened) throw new Error('a suite’s resource is opened in its beforeAll, before any test');
    return opened.resource;
  };
}
