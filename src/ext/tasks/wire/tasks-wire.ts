import type { McpTaskRecord } from '../store/mcp-task.types';

/** The `Task` fields every task answer carries. */
function taskFields(task: McpTaskRecord): Record<string, unknown> {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage !== undefined && { statusMessage: task.statusMessage }),
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
  };
}

/** The flat `CreateTaskResult` a task-creating `tools/call` answers with. @internal */
export function createTaskResult(task: McpTaskRecord): Record<string, unknown> {
  return { resultType: 'task', ...taskFields(task) };
}

/**
 * The `DetailedTask` of `tasks/get` and `notifications/tasks`: the result inlined once completed,
 * the error once failed, the outstanding input requests while input is required. Never the
 * protected state.
 * @internal
 */
export function detailedTask(task: McpTaskRecord): Record<string, unknown> {
  const detailed = taskFields(task);
  if (task.status === 'completed')
    detailed.result = task.result ?? { resultType: 'complete', content: [] };
  if (task.status === 'failed') detailed.error = task.error;
  if (task.status === 'input_required') detailed.inputRequests = task.inputRequests ?? {};
  return detailed;
}
