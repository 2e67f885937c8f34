/** The matchers the contract suites use: the same in Jest and Vitest. @internal */
export interface ContractMatchers<R> {
  toBe(expected: unknown): R;
  toEqual(expected: unknown): R;
  toMatchObject(expected: object): R;
  toBeDefined(): R;
  toBeUndefined(): R;
  toBeInstanceOf(expected: abstract new (...args: never[]) => unknown): R;
  toBeGreaterThanOrEqual(expected: number): R;
  toBeLessThan(expected: number): R;
  toBeLessThanOrEqual(expected: number): R;
  toHaveLength(expected: number): R;
  toThrow(expected?: string | RegExp): R;
}

/** `expect(value)` as the contract suites use it. @internal */
export interface ContractExpectation extends ContractMatchers<void> {
  readonly resolves: ContractMatchers<Promise<void>>;
  readonly rejects: ContractMatchers<Promise<void>>;
}

type Body = () => void | Promise<unknown>;

/** The globals of the test runner the contract suites are declared in. @internal */
export interface TestRunnerGlobals {
  describe(name: string, body: () => void): void;
  it(name: string, body: Body, timeoutMs?: number): void;
  beforeEach(body: Body): void;
  afterEach(body: Body): void;
  expect(actual: unknown): ContractExpectation;
}

const NAMES = ['describe', 'it', 'beforeEach', 'afterEach', 'expect'] as const;

/**
 * The running test runner's globals, read when a contract suite is declared. The contracts take
 * them from `globalThis` rather than importing a runner, so the same suite runs under Jest and
 * under Vitest (`globals: true`), and the package's declarations name no runner's types.
 * @internal
 */
export function testRunnerGlobals(): TestRunnerGlobals {
  const scope = globalThis as Record<string, unknown>;
  const missing = NAMES.filter((name) => typeof scope[name] !== 'function');
  if (missing.length > 0)
    throw new Error(
      `nestjs-mcp/testing contract suites need the test runner's globals (${missing.join(', ')} ` +
        'missing): run them under Jest, or Vitest with `globals: true`.',
    );
  return scope as unknown as TestRunnerGlobals;
}
