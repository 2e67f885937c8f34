/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** What a truthy value of `T` can be. */
export type Truthy<T> = Exclude<T, undefined | null | false | 0 | ''>;

/** How {@link until} polls. */
export interface UntilOptions<T> {
  /** Whether a probed value is the one waited for. Default: the value is truthy. */
  readonly done?: (value: T) => boolean;
  /** What is waited for, named when the time runs out. */
  readonly what?: string;
  /** How long to wait before failing. Default 10,000 ms: a bound on a hang, not on speed. */
  readonly timeoutMs?: number;
  /** Pause between probes. Default 20 ms. */
  readonly everyMs?: number;
}

function describeValue(value: unknown): string {
  try {
    return JSON.stringify(value)?.slice(0, 300) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Probes until the value is the one waited for (`done`, by default truthy) and resolves with it;
 * rejects, naming `what` and the last value seen, once `timeoutMs` has passed. The only timing it
 * knows is that deadline, so the condition is what a test asserts, never how fast it came.
 */
export function until<T>(
  probe: () => T | Promise<T>,
  options: UntilOptions<T> & Required<Pick<UntilOptions<T>, 'done'>>,
): Promise<T>;
export function until<T>(
  probe: () => T | Promise<T>,
  options?: Omit<UntilOptions<T>, 'done'> | string,
): Promise<Truthy<T>>;
export async function until<T>(
  probe: () => T | Promise<T>,
  options: UntilOptions<T> | string = {},
): Promise<T> {
  const {
    done = Boolean,
    what = 'the condition',
    timeoutMs = 10_000,
    everyMs = 20,
  } = typeof options === 'string' ? { what: options } : options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}; last: ${describeValue(value)}`,
      );
    await sleep(everyMs);
  }
}

/** Waits until `read()` returns `expected` (compared with `===`), then asserts it. */
export async function eventually<T>(read: () => T, expected: T, timeoutMs = 10_000): Promise<void> {
  await until(read, { done: (value) => value === expected, timeoutMs, everyMs: 5 }).catch(
    () => undefined,
  );
  expect(read()).toBe(expected);
}
