import { InProcessTaskRunner } from './in-process-task.runner';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('InProcessTaskRunner', () => {
  it('runs at most maxConcurrent steps at once, the rest in the order they came', async () => {
    const runner = new InProcessTaskRunner({ maxConcurrent: 2 });
    const started: string[] = [];
    const gates = new Map<string, ReturnType<typeof deferred>>();
    runner.attach((taskId) => {
      started.push(taskId);
      const gate = deferred();
      gates.set(taskId, gate);
      return gate.promise;
    });
    for (const taskId of ['a', 'b', 'c', 'd']) await runner.schedule(taskId);
    await tick();
    expect(started).toEqual(['a', 'b']);
    expect(runner.queued).toBe(2);
    gates.get('b')?.resolve();
    await tick();
    await tick();
    expect(started).toEqual(['a', 'b', 'c']);
    await runner.close();
  });

  it('aborts a running step on cancel, and never starts a queued one that was cancelled', async () => {
    const runner = new InProcessTaskRunner({ maxConcurrent: 1 });
    const seen: { taskId: string; signal: AbortSignal }[] = [];
    const gate = deferred();
    runner.attach((taskId, signal) => {
      seen.push({ taskId, signal });
      return gate.promise;
    });
    await runner.schedule('running');
    await runner.schedule('queued');
    await tick();
    await runner.cancel('running');
    await runner.cancel('queued');
    expect(seen[0].signal.aborted).toBe(true);
    gate.resolve();
    await tick();
    await tick();
    expect(seen.map((step) => step.taskId)).toEqual(['running']);
    await runner.close();
  });

  it('runs only the latest of two schedules of one task still waiting for a slot', async () => {
    const runner = new InProcessTaskRunner({ maxConcurrent: 1 });
    const seen: string[] = [];
    const gate = deferred();
    runner.attach((taskId) => {
      seen.push(taskId);
      return taskId === 'first' ? gate.promise : Promise.resolve();
    });
    await runner.schedule('first');
    await runner.schedule('again');
    await runner.schedule('again');
    await tick();
    gate.resolve();
    for (let i = 0; i < 5; i++) await tick();
    expect(seen).toEqual(['first', 'again']);
    await runner.close();
  });

  it('refuses work once closed, and a bad maxConcurrent at construction', async () => {
    const runner = new InProcessTaskRunner();
    runner.attach(() => Promise.resolve());
    await runner.close();
    await expect(runner.schedule('late')).rejects.toThrow('not running');
    expect(() => new InProcessTaskRunner({ maxConcurrent: 0 })).toThrow(RangeError);
  });
});
