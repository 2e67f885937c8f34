import { Inject, Injectable, Logger } from '@nestjs/common';
import { ProtocolError } from '@modelcontextprotocol/server';
import { internalError } from '../../kit/errors/internal-error';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import type { McpJsonValue } from '../../kit/json-value';
import type { McpOperationContext } from '../../input/mcp-operation-context.interface';
import {
  REQUEST_STATE_LIMITS,
  type RequestStateLimits,
} from '../../request-state/sealing/request-state-limits';
import { McpOperationRegistry } from '../discovery/mcp-operation.registry';
import { clip } from '../../kit/clip';
import { sha256Base64Url } from '../../kit/sha256';
import { OutageLog } from '../../redis/outage-log';
import { INVALID_REQUEST_STATE_MESSAGE } from '../../kit/errors/invalid-request-state.message';
import {
  McpStateHandleFlow,
  type StateHandleFlowPort,
  type StateHandleFlowPosition,
} from './mcp-state-handle-flow';
import { McpRequestStateMode } from '../../input/mcp-request-state-mode.enum';
import { CallerPartitions } from '../../auth/identity/caller-partitions';
import {
  decodeStateHandleData,
  encodeStateHandleData,
  isWellFormedStateHandle,
  newStateHandle,
  stateHandleBinding,
} from '../../request-state/stores/handles/state-handle';
import { StateHandleRepositoryError } from '../../request-state/stores/handles/state-handle-repository.error';
import { storeFailureAnswer } from '../../request-state/stores/store-failure';
import {
  StateHandleRepository,
  type StateHandleRecord,
} from '../../request-state/stores/handles/state-handle-repository.interface';

/**
 * Keeps the continuation of an `APPLICATION_PROTECTED` operation in a {@link StateHandleRepository}
 * and puts only a random handle on the wire. Each retry redeems the presented handle and replaces
 * it with a fresh one in one atomic step, before your code sees the data, so a handle works once:
 * a replayed, expired, unknown, malformed handle, or one issued to another caller or operation,
 * gets `-32602 Invalid request state` and consumes nothing.
 *
 * @example
 * ```ts
 * @McpTool({ requestState: McpRequestStateMode.APPLICATION_PROTECTED })
 * @McpMayRequestInput({ type: 'elicitation.form' })
 * async approveExpense(@McpArgs() args: ExpenseDto, @McpContext() ctx: McpContext) {
 *   const flow = await this.handles.resume<ExpenseDraft>(ctx);   // first, before any side effect
 *   const answer = flow.data && ctx.inputResponses.find('approval', ApprovalAnswer);
 *   if (!answer) {
 *     return McpInputRequiredResult.builder()
 *       .inputRequest('approval', McpInputRequest.elicitForm({ message: 'Approve?', requestedSchema }))
 *       .applicationState(await flow.save(flow.data ?? draftOf(args)))
 *       .build();
 *   }
 *   await flow.finish();
 *   return answer.content?.approve ? this.expenses.approve(flow.data) : 'Not approved';
 * }
 * ```
 * @publicApi
 */
@Injectable()
export class McpStateHandles {
  private readonly logger = new Logger('McpRequestState');
  private readonly outage = new OutageLog(this.logger, 'The state handle repository');
  /** One flow per call, so a second `resume` neither redeems again nor fails. */
  private readonly flows = new WeakMap<McpOperationContext, Promise<McpStateHandleFlow<unknown>>>();

  /** Made by the module (inject it): its dependencies are the module's own. @internal */
  constructor(
    @Inject(REQUEST_STATE_LIMITS) private readonly limits: RequestStateLimits,
    private readonly partitions: CallerPartitions,
    @Inject(StateHandleRepository) private readonly repository: StateHandleRepository,
    private readonly operations: McpOperationRegistry,
  ) {}

  /**
   * This call's flow. With no request state it starts one (`data` undefined, nothing stored yet);
   * with a handle it redeems it, or rejects with `-32602 Invalid request state` (reason logged), or
   * with `-32000 Server busy: the store is unavailable` when the repository cannot answer now.
   * Call it before anything with a side effect.
   * Calling it again for the same call returns the same flow.
   */
  resume<T = McpJsonValue>(ctx: McpOperationContext): Promise<McpStateHandleFlow<T>> {
    let flow = this.flows.get(ctx);
    if (!flow) {
      flow = this.open(ctx);
      this.flows.set(ctx, flow);
    }
    return flow as Promise<McpStateHandleFlow<T>>;
  }

  private async open(ctx: McpOperationContext): Promise<McpStateHandleFlow<unknown>> {
    const mode = this.declaredStateMode(ctx);
    if (mode !== McpRequestStateMode.APPLICATION_PROTECTED) {
      this.logger.error(
        `${this.where(ctx)} uses state handles but declares requestState "${mode}"; declare APPLICATION_PROTECTED`,
      );
      throw internalError();
    }
    const presented = ctx.requestState.application;
    const partition = await this.partitions.resolve(ctx);
    const binding = stateHandleBinding(partition, ctx.method, ctx.target);
    // Fair shares are by caller: each record names its owner by a digest of the partition.
    const port = this.portFor(ctx, binding, sha256Base64Url(partition));
    if (presented === undefined)
      return new McpStateHandleFlow(
        undefined,
        { handle: undefined, expiresAt: undefined, round: 0 },
        port,
      );
    if (!isWellFormedStateHandle(presented)) throw this.reject(ctx, 'malformed handle');
    const replacement = newStateHandle();
    const record = await this.guard(ctx, 'redeemed', () =>
      this.repository.redeem(presented, binding, replacement),
    );
    // Missing, expired, replayed and foreign handles look alike to the repository, on purpose.
    if (!record) throw this.reject(ctx, 'handle unknown, expired, replayed or bound elsewhere');
    if (!(record.expiresAt > Date.now())) throw this.reject(ctx, 'handle expired');
    let data: unknown;
    try {
      data = decodeStateHandleData(record.data);
    } catch {
      this.logger.error(`${this.where(ctx)}: the data stored under a state handle is not JSON`);
      throw internalError();
    }
    return new McpStateHandleFlow(
      data,
      { handle: replacement, expiresAt: record.expiresAt, round: record.round },
      port,
    );
  }

  private declaredStateMode(ctx: McpOperationContext): McpRequestStateMode | 'unknown' {
    const operation =
      ctx.method === 'tools/call'
        ? this.operations.findTool(ctx.target)
        : ctx.method === 'prompts/get'
          ? this.operations.findPrompt(ctx.target)
          : ctx.method === 'resources/read'
            ? this.operations.findResource(ctx.target)?.resource
            : undefined;
    return operation?.profile.stateMode ?? 'unknown';
  }

  private portFor(ctx: McpOperationContext, binding: string, owner: string): StateHandleFlowPort {
    return {
      save: (position, data) => this.save(ctx, binding, owner, position, data),
      finish: (handle) => this.guard(ctx, 'deleted', () => this.repository.delete(handle)),
    };
  }

  private async save(
    ctx: McpOperationContext,
    binding: string,
    owner: string,
    position: StateHandleFlowPosition,
    data: unknown,
  ): Promise<string> {
    let text: string | undefined;
    try {
      text = encodeStateHandleData(data);
    } catch {
      text = undefined;
    }
    const { maxHandleDataBytes, maxLifetimeMs, maxRounds } = this.limits;
    const refusal =
      text === undefined
        ? 'data is not JSON'
        : Buffer.byteLength(text) > maxHandleDataBytes
          ? `data is over requestState.maxHandleDataBytes (${maxHandleDataBytes})`
          : position.round + 1 > maxRounds
            ? `the flow is past requestState.maxRounds (${maxRounds})`
            : position.expiresAt !== undefined && position.expiresAt <= Date.now()
              ? 'the flow expired'
              : undefined;
    if (refusal !== undefined) {
      this.logger.error(`${this.where(ctx)}: state handle data could not be saved (${refusal})`);
      throw internalError();
    }
    // Fixed before the write, so saves racing within one round share one handle and one expiry.
    const handle = (position.handle ??= newStateHandle());
    const expiresAt = (position.expiresAt ??= Date.now() + maxLifetimeMs);
    const record: StateHandleRecord = {
      binding,
      data: text as string,
      expiresAt,
      round: position.round + 1,
      owner,
    };
    await this.guard(ctx, 'saved', () => this.repository.put(handle, record));
    return handle;
  }

  /**
   * Runs a repository operation; a failure is never an accepted handle: no room or an outage (the
   * repository unreachable, timing out, read-only, out of memory…) a -32000 the client may retry,
   * anything else a logged -32603.
   */
  private async guard<R>(
    ctx: McpOperationContext,
    what: string,
    operation: () => Promise<R>,
  ): Promise<R> {
    try {
      const result = await operation();
      this.outage.answered();
      return result;
    } catch (error) {
      const reason =
        error instanceof StateHandleRepositoryError ? error.reason : 'repository_failure';
      throw storeFailureAnswer(
        error,
        reason,
        'state handles',
        `${this.where(ctx)}: state handle could not be ${what}`,
        this.logger,
        this.outage,
      );
    }
  }

  private reject(ctx: McpOperationContext, reason: string): ProtocolError {
    this.logger.warn(`${this.where(ctx)}: request state rejected: ${reason}`);
    return new ProtocolError(McpErrorCode.InvalidParams, INVALID_REQUEST_STATE_MESSAGE);
  }

  private where(ctx: McpOperationContext): string {
    return `MCP ${ctx.method} "${clip(ctx.target)}" (request ${clip(ctx.requestId)}, flow ${ctx.flowId})`;
  }
}
