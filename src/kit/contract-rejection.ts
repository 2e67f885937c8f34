import { testRunnerGlobals } from './test-runner-globals';

/**
 * The error `attempt` rejects with, checked with the running test runner's `expect` to be a
 * `type` (an attempt that resolves fails the check): how the contract suites read a refusal.
 * @internal
 */
export async function contractRejection<E>(
  attempt: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
): Promise<E> {
  const error = await attempt.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  testRunnerGlobals().expect(error).toBeInstanceOf(type);
  return error as E;
}
