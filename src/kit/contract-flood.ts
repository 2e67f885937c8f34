import { testRunnerGlobals } from './test-runner-globals';

/**
 * A flood in turns, as the capacity contracts run it: ten callers (`flood-0` … `flood-9`) each
 * make twelve `attempt`s, one caller after another. An attempt that resolves to anything but
 * `false` is held; one that rejects must be a refusal matching `refusal` (and a `type`, when
 * given). How many attempts each caller had held.
 * @internal
 */
export async function floodInTurns(
  attempt: (caller: string) => Promise<unknown>,
  refusal: object,
  type?: abstract new (...args: never[]) => unknown,
): Promise<Map<string, number>> {
  const { expect } = testRunnerGlobals();
  const held = new Map<string, number>();
  for (let round = 0; round < 12; round++)
    for (let index = 0; index < 10; index++) {
      const caller = `flood-${index}`;
      const accepted = await attempt(caller).then(
        (result) => result !== false,
        (error: unknown) => {
          if (type) expect(error).toBeInstanceOf(type);
          expect(error).toMatchObject(refusal);
          return false;
        },
      );
      if (accepted) held.set(caller, (held.get(caller) ?? 0) + 1);
    }
  return held;
}
