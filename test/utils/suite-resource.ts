/** How a {@link SuiteScope} opens one resource. */
export interface SuiteResourceOptions {
  /** The `beforeAll` timeout, for what takes long to start (a Redis Cluster, an emulator). */
  timeoutMs?: number;
}

/**
 * What the tests of one block (a file, a `describe`) share, closed like `await using` would close
 * it: each {@link open} runs in a `beforeAll` declared where it is called (so in the order of the
 * calls, and before the tests and hooks declared after it), and the scope's one `afterAll`, declared
 * where the scope is made, closes everything it opened, last opened first — the apps on a Redis
 * server before the server. Jest alone cannot say that: it runs a block's `afterAll` hooks in the
 * order they were declared.
 */
export class SuiteScope {
  private readonly closers: (() => unknown)[] = [];

  constructor() {
    afterAll(async () => {
      const failures: unknown[] = [];
      for (const close of this.closers.splice(0).reverse()) {
        try {
          await close();
        } catch (error) {
          failures.push(error);
        }
      }
      if (failures.length > 0) throw failures[0];
    });
  }

  /**
   * Opens a resource with `open` before the block's tests and closes it with `close` after them.
   * Returns a view of it that tests and later hooks use as the resource itself (property reads and
   * method calls go to the one `open` made), and that throws if used before it is opened.
   */
  open<T extends object>(
    open: () => T | Promise<T>,
    close: (resource: T) => unknown,
    options: SuiteResourceOptions = {},
  ): T {
    let opened: T | undefined;
    beforeAll(async () => {
      const resource = await open();
      opened = resource;
      this.closers.push(() => close(resource));
    }, options.timeoutMs);
    return viewOf(() => opened);
  }
}

/**
 * One resource for the tests of the block that calls this: {@link SuiteScope.open} in a scope of
 * its own. Several that depend on each other share one {@link SuiteScope}, so they close in
 * reverse.
 */
export function forSuite<T extends object>(
  open: () => T | Promise<T>,
  close: (resource: T) => unknown,
  options: SuiteResourceOptions = {},
): T {
  return new SuiteScope().open(open, close, options);
}

/**
 * An object that reads and writes every property of `current()` when used, methods bound to it,
 * and is an `instanceof` its class. Before the resource is opened it is not a promise (no `then`,
 * so `await` and Jest leave it alone) and any other use throws.
 */
function viewOf<T extends object>(current: () => T | undefined): T {
  const opened = (): T => {
    const resource = current();
    if (resource === undefined)
      throw new Error('a suite’s resource is opened in its beforeAll, before any test');
    return resource;
  };
  return new Proxy({} as T, {
    get(_target, property) {
      if (property === 'then' && current() === undefined) return undefined;
      const resource = opened();
      const value: unknown = Reflect.get(resource, property, resource);
      return typeof value === 'function'
        ? (value as (...args: unknown[]) => unknown).bind(resource)
        : value;
    },
    set: (_target, property, value) => Reflect.set(opened(), property, value),
    has: (_target, property) => Reflect.has(opened(), property),
    getPrototypeOf: () => Reflect.getPrototypeOf(opened()),
  });
}
