import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import type { TaskCapacityError } from './store/task-capacity.error';

/**
 * The -32000 a task-creating call gets when the store cannot take its task: the limit it reached
 * (`maxTasks` / `maxBytes` for the store, `maxTasksPerCaller` / `maxBytesPerCaller` for the caller
 * — lower than the option while the store is nearly full) and `retryAfterMs`, when the first task
 * that would make room expires.
 * @internal
 */
export function taskBusyError(error: TaskCapacityError): ProtocolError {
  const caller = error.scope === 'caller';
  const limitName = caller
    ? error.unit === 'bytes'
      ? 'maxBytesPerCaller'
      : 'maxTasksPerCaller'
    : error.unit === 'bytes'
      ? 'maxBytes'
      : 'maxTasks';
  return new ProtocolError(
    McpErrorCode.ServerBusy,
    caller ? 'Server busy: too many tasks for this caller' : 'Server busy: too many tasks',
    {
      [limitName]: error.maxTasks,
      ...(error.retryAfterMs !== undefined && { retryAfterMs: error.retryAfterMs }),
    },
  );
}

/** When a client is told to try again after the task runner (BullMQ's Redis) did not answer. */
const RUNNER_RETRY_AFTER_MS = 1_000;

/**
 * The -32000 a task-creating call or a `tasks/update` gets when the runner cannot schedule the
 * step now (BullMQ's Redis unreachable, timing out, read-only, out of memory): the task is
 * abandoned, giving its caller's slot back, and the call may be sent again.
 * @internal
 */
export function taskRunnerUnavailable(): ProtocolError {
  return new ProtocolError(McpErrorCode.ServerBusy, 'Server busy: the task runner is unavailable', {
    retryAfterMs: RUNNER_RETRY_AFTER_MS,
  });
}
