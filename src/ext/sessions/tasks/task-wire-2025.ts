import { RELATED_TASK_META_KEY } from '@modelcontextprotocol/server';

type Fields = Readonly<Record<string, unknown>>;

/**
 * A task as 2025-11-25 spells it (`Task`: `ttl` and `pollInterval` in ms, ISO timestamps), from
 * the fields the tasks engine answers with (`ttlMs`, `pollIntervalMs`). Result, error and input
 * requests stay out: 2025-11-25 gives them through `tasks/result` and server-to-client requests.
 * @internal
 */
export function task2025(task: Fields): Record<string, unknown> {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(typeof task.statusMessage === 'string' && { statusMessage: task.statusMessage }),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttl: typeof task.ttlMs === 'number' ? task.ttlMs : null,
    ...(typeof task.pollIntervalMs === 'number' && { pollInterval: task.pollIntervalMs }),
  };
}

/** The `CreateTaskResult` of 2025-11-25: the task under `task`. @internal */
export function createTaskResult2025(created: Fields): Record<string, unknown> {
  return { task: task2025(created) };
}

/** A completed task's result as `tasks/result` answers it, tagged with its task. @internal */
export function taskPayload2025(
  taskId: string,
  result: Fields | undefined,
): Record<string, unknown> {
  const {
    resultType: _resultType,
    _meta,
    ...payload
  } = (result ?? { content: [] }) as Record<string, unknown>;
  return {
    ...payload,
    _meta: {
      ...(_meta !== null && typeof _meta === 'object' ? (_meta as Record<string, unknown>) : {}),
      [RELATED_TASK_META_KEY]: { taskId },
    },
  };
}

/** What a 2025-11-25 server says of its tasks at `initialize`. @internal */
export const TASKS_CAPABILITY_2025 = {
  list: {},
  cancel: {},
  requests: { tools: { call: {} } },
} as const;
