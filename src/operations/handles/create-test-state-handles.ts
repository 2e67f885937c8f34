import type { McpOperationRegistry } from '../discovery/mcp-operation.registry';
import { resolveRequestStateLimits } from '../../request-state/sealing/request-state-limits';
import {
  DefaultAuthorizationPartitionResolver,
  type McpAuthorizationPartitionResolver,
} from '../../auth/identity/authorization-partition.resolver';
import { McpRequestStateMode } from '../../input/mcp-request-state-mode.enum';
import type { McpRequestStateOptions } from '../../request-state/sealing/mcp-request-state-options.interface';
import { McpStateHandles } from './mcp-state-handles.service';
import { MemoryStateHandleRepository } from '../../request-state/stores/handles/memory-state-handle.repository';
import type { CallerPartitions } from '../../auth/identity/caller-partitions';
import type { StateHandleRepository } from '../../request-state/stores/handles/state-handle-repository.interface';

/** What {@link createTestStateHandles} may be given. @publicApi */
export interface TestStateHandlesOptions {
  /** Where records live. Default: a fresh `MemoryStateHandleRepository`. */
  repository?: StateHandleRepository;
  /** Names the caller. Default: the module's default resolver (`user` of the test context, else `anonymous`). */
  partitionResolver?: McpAuthorizationPartitionResolver;
  /** `maxHandleDataBytes`, `maxLifetimeMs`, `maxRounds` as in the module options. */
  requestState?: Pick<McpRequestStateOptions, 'maxHandleDataBytes' | 'maxLifetimeMs' | 'maxRounds'>;
}

/**
 * An {@link McpStateHandles} for unit-testing an operation without a server: pass it to your
 * provider's constructor and drive the rounds with `createTestOperationContext`. Every operation
 * counts as `APPLICATION_PROTECTED`; handles, binding, rotation and limits behave as in the module.
 *
 * @example
 * ```ts
 * const tool = new ApproveExpenseTool(createTestStateHandles(), new ExpenseLedger());
 * const first = (await tool.approveExpense(args, createTestOperationContext({ target: 'approve_expense' }))) as McpInputRequiredResult;
 * const done = await tool.approveExpense(args, createTestOperationContext({
 *   target: 'approve_expense',
 *   applicationState: first.applicationState,
 *   inputResponses: { approval: { kind: 'elicitation', action: 'accept', content: { approve: true } } },
 * }));
 * ```
 * @publicApi
 */
export function createTestStateHandles(options: TestStateHandlesOptions = {}): McpStateHandles {
  const repository = options.repository ?? new MemoryStateHandleRepository();
  const resolver = options.partitionResolver ?? new DefaultAuthorizationPartitionResolver();
  const partitions: Pick<CallerPartitions, 'resolve'> = {
    resolve: async (context) => resolver.resolve(context),
  };
  const applicationProtected = {
    profile: { stateMode: McpRequestStateMode.APPLICATION_PROTECTED },
  };
  const operations = {
    findTool: () => applicationProtected,
    findPrompt: () => applicationProtected,
    findResource: () => ({ resource: applicationProtected, variables: {} }),
  };
  return new McpStateHandles(
    resolveRequestStateLimits(options.requestState),
    partitions as CallerPartitions,
    repository,
    operations as unknown as McpOperationRegistry,
  );
}
