import { testRunnerGlobals } from './test-runner-globals';

describe('testRunnerGlobals', () => {
  it("gives the running test runner's own globals", () => {
    const runner = testRunnerGlobals();
    expect(runner.describe).toBe(describe);
    expect(runner.expect).toBe(expect);
  });

  it('names the globals it cannot find, and how to get them', () => {
    const scope = globalThis as Record<string, unknown>;
    const kept = scope.beforeEach;
    delete scope.beforeEach;
    try {
      expect(() => testRunnerGlobals()).toThrow(
        /\(beforeEach missing\): run them under Jest, or Vitest with `globals: true`/,
      );
    } finally {
      scope.beforeEach = kept;
    }
  });
});
