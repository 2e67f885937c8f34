import { InvalidOperationDefinitionError } from '../../kit/errors/invalid-operation-definition.error';
import type { McpToolOptions } from '../decorators/mcp-operation-options.interface';
import type {
  McpTaskCreation,
  McpTaskSupport,
} from '../decorators/mcp-operation-options.interface';
import type { ToolTaskSupport } from './tool-task-support';

/** How a tool's calls become tasks, checked at startup. @internal */
export interface ToolTaskProfile {
  readonly support: McpTaskSupport;
  readonly creation: McpTaskCreation;
  readonly ttlMs: number;
}

const SUPPORT: readonly McpTaskSupport[] = ['forbidden', 'optional', 'required'];
const CREATION: readonly McpTaskCreation[] = ['immediate', 'deferred'];

/** @internal */
export function toolTaskProfile(
  where: string,
  options: McpToolOptions,
  tasks: ToolTaskSupport,
): ToolTaskProfile {
  const support = options.taskSupport ?? 'forbidden';
  if (!SUPPORT.includes(support))
    throw new InvalidOperationDefinitionError(where, `unknown taskSupport "${String(support)}"`);
  const creation = options.taskCreation ?? 'immediate';
  if (!CREATION.includes(creation))
    throw new InvalidOperationDefinitionError(where, `unknown taskCreation "${String(creation)}"`);
  const ttlMs = options.taskTtlMs ?? tasks.ttlMs;
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0 || ttlMs > tasks.maxTtlMs)
    throw new InvalidOperationDefinitionError(
      where,
      `taskTtlMs must be a positive integer of at most tasks.maxTtlMs (${tasks.maxTtlMs})`,
    );
  if (support === 'forbidden' && (options.taskCreation ?? options.taskTtlMs) !== undefined)
    throw new InvalidOperationDefinitionError(
      where,
      'taskCreation and taskTtlMs need taskSupport "optional" or "required"',
    );
  if (support === 'required' && !tasks.served)
    throw new InvalidOperationDefinitionError(
      where,
      'taskSupport "required" needs the tasks extension, which is turned off (tasks.enabled: false)',
    );
  return { support: tasks.served ? support : 'forbidden', creation, ttlMs };
}
