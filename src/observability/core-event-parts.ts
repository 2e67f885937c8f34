import type { McpTaskChangeEvent } from '../options/mcp-core-event';
import { OWN_ATTRIBUTES } from './mcp-semantic-conventions';
import type { AttributeMap } from './span-attributes';

/** Whose a task is, for the core's observers. @internal */
export interface TaskOwner {
  /** The status it had before; absent for a task just created. */
  readonly previousStatus?: string;
  readonly principal: string;
  readonly toolName: string;
}

/** A task's status change, as the core's observers (an audit trail) get it. @internal */
export function taskChangeOf(
  taskId: string,
  flowId: string | undefined,
  status: string,
  task: TaskOwner | undefined,
): McpTaskChangeEvent {
  return {
    kind: 'task',
    taskId,
    status,
    flowId,
    previousStatus: task?.previousStatus,
    principal: task?.principal,
    toolName: task?.toolName,
  };
}

/** The attributes of `nestjs_mcp.audit.records.dropped`. @internal */
export function auditDropAttributes(sink: string, reason: string): AttributeMap {
  return { [OWN_ATTRIBUTES.auditSink]: sink, [OWN_ATTRIBUTES.auditReason]: reason };
}
