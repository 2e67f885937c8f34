import { isTaskId } from '../store/task-id';
import type { RecordIntegrity } from '../../../extension-api';

/** A queued step as BullMQ keeps it: the task, the generation it runs for, the keyring's tag. @internal */
export interface StepData {
  readonly taskId: string;
  readonly generation: number;
  /** Over the job id, task id and generation; absent only outside the module (no keyring). */
  readonly tag?: string;
}

/** What a step or an abort message says, once it is known to be ours. @internal */
export interface StepTarget {
  readonly taskId: string;
  readonly generation: number;
}

const STEP_DOMAIN = 'bullmq-step';
const ABORT_DOMAIN = 'bullmq-abort';
/** Longest abort message read: generation, task id, tag. @internal */
export const MAX_ABORT_MESSAGE = 400;

/** The job id of a task's step of one generation. @internal */
export function jobIdOf(taskId: string, generation: number): string {
  return `${taskId}.${generation}`;
}

function isGeneration(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/** A step's job data, tagged when the runner has the keyring. @internal */
export function stepData(
  integrity: RecordIntegrity | undefined,
  taskId: string,
  generation: number,
): StepData {
  const jobId = jobIdOf(taskId, generation);
  return integrity
    ? { taskId, generation, tag: integrity.tag(STEP_DOMAIN, [jobId, taskId, String(generation)]) }
    : { taskId, generation };
}

/**
 * The step a job stands for, when its data is exactly what this runner queued under that job id:
 * data edited in Redis (pointed at another task, another generation, moved to another job) is not.
 * @internal
 */
export function authenticStep(
  integrity: RecordIntegrity | undefined,
  jobId: string | undefined,
  data: unknown,
): StepTarget | undefined {
  const { taskId, generation, tag } = (data ?? {}) as Partial<StepData>;
  if (!isTaskId(taskId) || !isGeneration(generation)) return undefined;
  if (jobId !== jobIdOf(taskId, generation)) return undefined;
  if (integrity && !integrity.verify(tag, STEP_DOMAIN, [jobId, taskId, String(generation)]))
    return undefined;
  return { taskId, generation };
}

/** `<generation> <taskId>[ <tag>]` on the runner's abort channel. @internal */
export function abortMessage(
  integrity: RecordIntegrity | undefined,
  channel: string,
  taskId: string,
  generation: number,
): string {
  const message = `${generation} ${taskId}`;
  return integrity
    ? `${message} ${integrity.tag(ABORT_DOMAIN, [channel, taskId, String(generation)])}`
    : message;
}

/**
 * What an abort message asks for, when it is one of the fleet's: anything else — unauthenticated,
 * oversized, malformed — is ignored, so one `PUBLISH` cannot freeze a task.
 * @internal
 */
export function readAbortMessage(
  integrity: RecordIntegrity | undefined,
  channel: string,
  message: unknown,
): StepTarget | undefined {
  if (typeof message !== 'string' || message.length > MAX_ABORT_MESSAGE) return undefined;
  const [spelledGeneration, taskId, tag, ...rest] = message.split(' ');
  if (rest.length > 0 || !/^[1-9][0-9]{0,15}$/.test(spelledGeneration ?? '')) return undefined;
  const generation = Number(spelledGeneration);
  if (!isTaskId(taskId) || !isGeneration(generation)) return undefined;
  if (integrity && !integrity.verify(tag, ABORT_DOMAIN, [channel, taskId, String(generation)]))
    return undefined;
  if (!integrity && tag !== undefined) return undefined;
  return { taskId, generation };
}
