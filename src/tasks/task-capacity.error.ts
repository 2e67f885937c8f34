import { NestjsMcpError } from '../errors/nestjs-mcp.error';

/**
 * Thrown by a {@link TaskStore} that holds as many tasks as it may; the client gets -32000 (server
 * busy) and may retry later.
 *
 * @publicApi
 */
export class TaskCapacityError extends NestjsMcpError {
  constructor(readonly maxTasks: number) {
    super(`The task store holds its maximum of ${maxTasks} tasks`);
  }
}
