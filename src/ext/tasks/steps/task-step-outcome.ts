import type { McpJsonValue } from '../../../kit/json-value';
import type { McpTaskError, McpTaskRecord } from '../store/mcp-task.types';
import type { CallHttp } from '../../../extension-api';

/** What one run of a task's operation ended with. @internal */
export type TaskStepOutcome =
  | { readonly kind: 'complete'; readonly result: Record<string, McpJsonValue> }
  | {
      readonly kind: 'input_required';
      readonly inputRequests: Record<string, McpJsonValue>;
      readonly requestState: string | undefined;
    }
  | { readonly kind: 'failed'; readonly error: McpTaskError };

/** What a run of the operation can do to its task while it runs. @internal */
export interface TaskStepScope {
  readonly signal: AbortSignal;
  /** The request that created or resumed the task, when this instance held it; else detached. */
  readonly http?: CallHttp;
  /** Records progress as the task's status message. */
  progress(message: string): Promise<void>;
}

/** Runs a task's operation once. @internal */
export interface TaskExecutor {
  run(task: McpTaskRecord, scope: TaskStepScope): Promise<TaskStepOutcome>;
}
