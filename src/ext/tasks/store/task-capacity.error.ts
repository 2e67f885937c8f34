import { NestjsMcpError } from '../../../kit/errors/nestjs-mcp.error';

/**
 * Thrown by a {@link TaskStore} that cannot take a task — the store is full (`scope: 'store'`), or
 * the task's caller holds its share (`scope: 'caller'`: its own limit, or less while the store is
 * nearly full, so the heaviest callers are refused first). The client gets -32000 (server busy)
 * with `data.retryAfterMs`.
 *
 * @publicApi
 */
export class TaskCapacityError extends NestjsMcpError {
  constructor(
    /** The limit reached: a number of tasks, or of bytes when `unit` is `'bytes'`. */
    readonly maxTasks: number,
    readonly scope: 'store' | 'caller' = 'store',
    /** When trying again may succeed: the first of the relevant tasks expires. */
    readonly retryAfterMs?: number,
    readonly unit: 'tasks' | 'bytes' = 'tasks',
  ) {
    super(
      `The ${scope === 'caller' ? 'caller' : 'task store'} holds its maximum of ${maxTasks} ${unit === 'bytes' ? 'bytes of tasks' : 'tasks'}`,
    );
  }
}
