import type { McpOperationRegistry, OperationRunner, ToolEntry } from '../../../extension-api';
import { createTestTaskRecord } from '../store/test-task-record';
import { TaskStepExecutor } from './task-step.executor';

function executorWith(definition: string) {
  const runs: unknown[] = [];
  const tool = {
    name: 'export',
    profile: { definition },
    listing: { name: 'export', inputSchema: { type: 'object' } },
  } as unknown as ToolEntry;
  const registry = { findTool: () => tool } as unknown as McpOperationRegistry;
  const runner = {
    run: (input: unknown) => {
      runs.push(input);
      return Promise.resolve({ kind: 'complete', value: 'done' });
    },
  } as unknown as OperationRunner;
  return { executor: new TaskStepExecutor(registry, runner, '/mcp'), runs };
}

const scope = () => ({
  signal: new AbortController().signal,
  http: undefined,
  progress: () => Promise.resolve(),
});

describe('TaskStepExecutor and the definition a task was created under', () => {
  it('fails the task with -32602 Invalid request state, running nothing, when the tool is defined otherwise now', async () => {
    const { executor, runs } = executorWith('definition-2');
    const task = createTestTaskRecord('t1', 60_000, {
      call: { name: 'export', params: { name: 'export' }, definition: 'definition-1' },
    });
    expect(await executor.run(task, scope())).toEqual({
      kind: 'failed',
      error: { code: -32602, message: 'Invalid request state' },
    });
    expect(runs).toHaveLength(0);
  });

  it('runs the step when the tool is defined as it was (and for records older than the binding)', async () => {
    const { executor, runs } = executorWith('definition-1');
    const same = createTestTaskRecord('t2', 60_000, {
      call: { name: 'export', params: { name: 'export' }, definition: 'definition-1' },
    });
    expect((await executor.run(same, scope())).kind).toBe('complete');
    expect((await executor.run(createTestTaskRecord('t3'), scope())).kind).toBe('complete');
    expect(runs).toHaveLength(2);
  });
});
