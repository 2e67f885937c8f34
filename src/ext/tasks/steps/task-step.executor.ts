import { Inject, Injectable, Logger } from '@nestjs/common';
import { McpErrorCode } from '../../../kit/errors/mcp-error-codes';
import { MCP_ENDPOINT } from '../../../kit/mcp.constants';
import { clip } from '../../../kit/clip';
import { INVALID_REQUEST_STATE_MESSAGE } from '../../../kit/errors/invalid-request-state.message';
import type { McpTaskRecord } from '../store/mcp-task.types';
import { exactAnswersOf } from '../task-answers';
import { progressMessage, stepOutcome } from '../task-call';
import type { TaskExecutor, TaskStepOutcome, TaskStepScope } from './task-step-outcome';
import {
  McpOperationRegistry,
  OperationRunner,
  answerOf,
  detachedStepHttp,
  envelopeContext,
  normalizeToolResult,
  ownArguments,
  type McpTaskContext,
  type TaskPrincipal,
} from '../../../extension-api';

/**
 * Runs one later step of a task, as the task runner asks for it: a full run of the tool through
 * the operation runner with the task's arguments, every answer so far and the state the last step
 * emitted, on the request that created or resumed the task — or, away from it (another instance
 * holds that request), detached: as the principal and partition the task kept.
 * @internal
 */
@Injectable()
export class TaskStepExecutor implements TaskExecutor {
  private readonly logger = new Logger('McpTasks');

  constructor(
    private readonly registry: McpOperationRegistry,
    private readonly runner: OperationRunner,
    @Inject(MCP_ENDPOINT) private readonly endpoint: string,
  ) {}

  async run(task: McpTaskRecord, scope: TaskStepScope): Promise<TaskStepOutcome> {
    const exchange = scope.http;
    const tool = this.registry.findTool(task.call.name);
    if (!tool) {
      this.logger.error(`Task ${task.taskId} cannot run here: its tool is not known`);
      return {
        kind: 'failed',
        error: { code: McpErrorCode.InternalError, message: 'Internal error' },
      };
    }
    if (task.call.definition !== undefined && task.call.definition !== tool.profile.definition) {
      this.logger.warn(
        `Task ${task.taskId} refused: its tool "${clip(tool.name)}" is defined otherwise than when the task was created (a deploy or a run-time re-registration changed its schemas or declarations)`,
      );
      return {
        kind: 'failed',
        error: { code: McpErrorCode.InvalidParams, message: INVALID_REQUEST_STATE_MESSAGE },
      };
    }
    const params: Record<string, unknown> = { ...task.call.params };
    const answers = exactAnswersOf(task);
    if (Object.keys(answers).length > 0) params.inputResponses = answers;
    if (task.requestState !== undefined) params.requestState = task.requestState;
    const sdk = envelopeContext(
      `${task.taskId}#${task.runs}`,
      'tools/call',
      params._meta,
      scope.signal,
    );
    const taskContext: McpTaskContext = { id: task.taskId, start: () => Promise.resolve() };
    const outcome = await this.runner.run({
      operation: tool,
      target: tool.name,
      params,
      args: ownArguments(params) ?? {},
      http:
        exchange ?? detachedStepHttp(task.principal as TaskPrincipal | undefined, this.endpoint),
      detached: exchange ? undefined : { taskId: task.taskId, partition: task.partition },
      sdk,
      task: {
        task: taskContext,
        flowId: task.flow?.id,
        step: { trace: task.flow?.trace },
        signal: scope.signal,
        progress: {
          enabled: true,
          report: (progress, total, message) =>
            scope.progress(progressMessage(progress, total, message)),
        },
      },
    });
    return stepOutcome(
      answerOf(outcome, (value) =>
        normalizeToolResult(value, tool.listing.outputSchema !== undefined),
      ),
    );
  }
}
