import { NestjsMcpError } from '../../errors/nestjs-mcp.error';

/**
 * Thrown by a {@link TaskStore} that holds as many tasks as it may — in all, or for the task's
 * caller (`scope: 'caller'`); the client gets -32000 (server busy) and may retry later.
 *
 * @publicApi
 */
export class TaskCapacityError extends NestjsMcpError {
  constructor(
    readonly maxTasks: number,
    readonly scope: 'store' | 'caller' = 'store',
  ) {
    super(
      scope === 'caller'
        ? `The caller holds its maximum of ${maxTasks} tasks`
        : `The task store holds its maximum of ${maxTasks} tasks`,
    );
  }
}
