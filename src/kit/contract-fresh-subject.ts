import { testRunnerGlobals } from './test-runner-globals';

/**
 * A contract's suite `title`, each of whose cases runs on a subject of its own: `make` gives a
 * fresh one before each case, and `cases` declares the cases, reading the current one through
 * `subject()`.
 * @internal
 */
export function describeOnFreshSubject<S>(
  title: string,
  make: () => S | Promise<S>,
  cases: (subject: () => S) => void,
): void {
  const { describe, beforeEach } = testRunnerGlobals();
  describe(title, () => {
    let current: S;
    beforeEach(async () => {
      current = await make();
    });
    cases(() => current);
  });
}
