import { Logger } from '@nestjs/common';
import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import type { McpJsonValue } from '../../kit/json-value';
import { clip } from '../../kit/clip';
import type { McpTaskRecord } from './store/mcp-task.types';
import type { TaskStepOutcome } from './steps/task-step-outcome';

const logger = new Logger('McpTasks');

/** What a step's outcome makes of its task. @internal */
export function settledFields(
  outcome: TaskStepOutcome,
  maxResultBytes: number,
): Partial<McpTaskRecord> {
  if (outcome.kind === 'input_required')
    return {
      status: 'input_required',
      inputRequests: outcome.inputRequests,
      requestState: outcome.requestState,
    };
  if (outcome.kind === 'failed') return { status: 'failed', error: outcome.error };
  if (Buffer.byteLength(JSON.stringify(outcome.result)) > maxResultBytes) {
    logger.error(
      `A task result is over ${maxResultBytes} bytes (tasks.maxResultBytes); the task fails`,
    );
    return {
      status: 'failed',
      error: { code: McpErrorCode.InternalError, message: 'Task result too large' },
    };
  }
  return { status: 'completed', result: outcome.result, requestState: undefined };
}

/**
 * The outcome of a step that threw: a protocol error as the task's error; anything else (a bug)
 * logged with its stack here and a bare -32603 on the wire.
 * @internal
 */
export function failedStep(taskId: string, error: unknown): TaskStepOutcome {
  if (error instanceof ProtocolError)
    return {
      kind: 'failed',
      error: {
        code: error.code,
        message: error.message,
        ...(error.data !== undefined && { data: error.data as McpJsonValue }),
      },
    };
  logger.error(`Task ${clip(taskId)} failed`, error instanceof Error ? error.stack : String(error));
  return { kind: 'failed', error: { code: McpErrorCode.InternalError, message: 'Internal error' } };
}

/** Drops keys set to `undefined`, so a store that serializes sees the same record. @internal */
export function withoutUndefined(task: McpTaskRecord): McpTaskRecord {
  return Object.fromEntries(
    Object.entries(task).filter(([, value]) => value !== undefined),
  ) as unknown as McpTaskRecord;
}
