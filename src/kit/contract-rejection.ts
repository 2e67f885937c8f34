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

/**
 * Of `attempts`, made at once, exactly `accepted` succeed; each of the others is refused with a
 * `type` matching `refusal`.
 * @internal
 */
export async function expectAcceptedOf(
  attempts: Promise<unknown>[],
  accepted: number,
  type: abstract new (...args: never[]) => unknown,
  refusal: object,
): Promise<void> {
  const { expect } = testRunnerGlobals();
  const settled = await Promise.allSettled(attempts);
  expect(settled.filter((attempt) => attempt.status === 'fulfilled')).toHaveLength(accepted);
  for (const attempt of settled) {
    if (attempt.status === 'fulfilled') continue;
    expect(attempt.reason).toBeInstanceOf(type);
    expect(attempt.reason).toMatchObject(refusal);
  }
}
