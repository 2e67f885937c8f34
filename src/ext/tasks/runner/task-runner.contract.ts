import type { TaskRunner } from './task-runner.interface';
import { testRunnerGlobals } from '../../../kit/test-runner-globals';

/** One step as the work saw it: its task id, its signal and how to end it. @internal */
export interface SeenStep {
  readonly taskId: string;
  readonly signal: AbortSignal;
  finish(): void;
}

/**
 * Work that records every step it is given and runs until the test ends it or it is aborted.
 * @internal
 */
export function recordingWork() {
  const steps: SeenStep[] = [];
  const waiters: (() => void)[] = [];
  const work = (taskId: string, signal: AbortSignal) =>
    new Promise<void>((finish) => {
      signal.addEventListener('abort', () => finish(), { once: true });
      steps.push({ taskId, signal, finish });
      waiters.splice(0).forEach((wake) => wake());
    });
  /** Resolves with the `count`-th step once it has started (waiting at most `timeoutMs`). */
  const nth = async (count: number, timeoutMs = 10_000): Promise<SeenStep> => {
    const deadline = Date.now() + timeoutMs;
    while (steps.length < count) {
      if (Date.now() > deadline) throw new Error(`step ${count} did not start in ${timeoutMs} ms`);
      await new Promise<void>((wake) => {
        waiters.push(wake);
        setTimeout(wake, 50);
      });
    }
    return steps[count - 1];
  };
  return { work, steps, nth };
}

/** Waits until `signal` aborts (at most `timeoutMs`). @internal */
export function aborted(signal: AbortSignal, timeoutMs = 10_000): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error('the signal did not abort')), timeoutMs);
    signal.addEventListener('abort', () => (clearTimeout(timer), done()), { once: true });
  });
}

let counter = 0;
/** A fresh task id, in the module's alphabet. @internal */
export const freshTaskId = () => `run${process.pid}_${Date.now()}_${counter++}`;

/**
 * The behaviour every {@link TaskRunner} must have: run it against each implementation.
 * `makeRunner` gives the runner under test, afresh for each case, with room for at least two
 * steps at once; the suite attaches work to it and closes it.
 * @publicApi
 */
export function describeTaskRunnerContract(
  name: string,
  makeRunner: () => TaskRunner | Promise<TaskRunner>,
): void {
  const { describe, it, beforeEach, afterEach, expect } = testRunnerGlobals();
  describe(`${name} (TaskRunner contract)`, () => {
    let runner: TaskRunner;
    let seen: ReturnType<typeof recordingWork>;

    beforeEach(async () => {
      runner = await makeRunner();
      seen = recordingWork();
      runner.attach(seen.work);
    });

    afterEach(async () => {
      seen.steps.forEach((step) => step.finish());
      await runner.close();
    });

    it('runs scheduled work with the task id and a live signal', async () => {
      const taskId = freshTaskId();
      await runner.schedule(taskId);
      const step = await seen.nth(1);
      expect(step.taskId).toBe(taskId);
      expect(step.signal.aborted).toBe(false);
    });

    /** Schedules two fresh tasks and waits until both their steps run; the two ids. */
    const twoRunning = async (): Promise<[string, string]> => {
      const ids: [string, string] = [freshTaskId(), freshTaskId()];
      for (const taskId of ids) await runner.schedule(taskId);
      await seen.nth(2);
      return ids;
    };

    it('runs the steps of different tasks side by side', async () => {
      const [first, second] = await twoRunning();
      expect(seen.steps.map((step) => step.taskId).sort()).toEqual([first, second].sort());
    });

    it('aborts the running step of a cancelled task, and only that one', async () => {
      const [cancelled, other] = await twoRunning();
      await runner.cancel(cancelled);
      const step = seen.steps.find((each) => each.taskId === cancelled) as SeenStep;
      await aborted(step.signal);
      expect(seen.steps.find((each) => each.taskId === other)?.signal.aborted).toBe(false);
    });

    it('lets a new schedule of a task supersede its running step', async () => {
      const taskId = freshTaskId();
      await runner.schedule(taskId);
      const first = await seen.nth(1);
      await runner.schedule(taskId);
      const second = await seen.nth(2);
      await aborted(first.signal);
      expect(second.taskId).toBe(taskId);
      expect(second.signal.aborted).toBe(false);
    });

    it('aborts running steps on close and refuses to schedule after', async () => {
      const taskId = freshTaskId();
      await runner.schedule(taskId);
      const step = await seen.nth(1);
      await runner.close();
      expect(step.signal.aborted).toBe(true);
      await expect(runner.schedule(freshTaskId())).rejects.toThrow('not running');
    });
  });
}
