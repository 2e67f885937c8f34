import { Injectable, Module } from '@nestjs/common';
import {
  McpArgs,
  McpInputRequest,
  McpInputRequiredResult,
  McpMayRequestInput,
  McpContext,
  McpOperationContext,
  McpRequestStateMode,
  McpStateHandles,
  McpTool,
  type McpAuthorizationPartitionResolver,
} from '../../../src/index';
import { StateHandleRepository, type StateHandleRecord } from '../../../src/entry/stores';
import { HandlerRuns, HandlerRunsModule } from '../../fixtures/handler-runs';
import { requiredField } from '../../utils/input-asks';

const valueSchema = requiredField('value', 'string');
const approveSchema = requiredField('approve', 'boolean');

/** The caller is the `X-User` header (anonymous without one). */
export const HEADER_PARTITIONS: McpAuthorizationPartitionResolver = {
  resolve: (ctx) => {
    const user = ctx.http.request.headers['x-user'];
    return typeof user === 'string' ? `user:${user}` : 'anonymous';
  },
};

/** Flows that keep their continuation under rotating state handles. */
@Injectable()
export class StateHandleFixtures {
  constructor(
    private readonly handles: McpStateHandles,
    private readonly runs: HandlerRuns,
  ) {}

  @McpTool({
    name: 'handle_collect',
    description: 'Asks for one value per round, keeping the values under a state handle',
    requestState: McpRequestStateMode.APPLICATION_PROTECTED,
    inputSchema: {
      type: 'object',
      properties: { rounds: { type: 'integer' } },
      required: ['rounds'],
    },
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  async collect(
    @McpArgs() args: { rounds: number },
    @McpContext() ctx: McpOperationContext,
  ): Promise<McpInputRequiredResult | string> {
    const flow = await this.handles.resume<{ values: string[] }>(ctx);
    const values = [...(flow.data?.values ?? [])];
    const answer = flow.data ? ctx.inputResponses.find(`step-${values.length + 1}`) : undefined;
    if (answer?.kind === 'elicitation' && typeof answer.content?.value === 'string')
      values.push(answer.content.value);
    if (values.length >= args.rounds) {
      await flow.finish();
      this.runs.hit('handle_collect:done');
      return values.join(',');
    }
    const step = values.length + 1;
    return McpInputRequiredResult.builder()
      .inputRequest(
        `step-${step}`,
        McpInputRequest.elicitForm({ message: `Value ${step}?`, requestedSchema: valueSchema }),
      )
      .applicationState(await flow.save({ values }))
      .build();
  }

  @McpTool({
    name: 'handle_approve',
    description: 'Approves an amount once the user confirms; the amount waits under a handle',
    requestState: McpRequestStateMode.APPLICATION_PROTECTED,
    inputSchema: {
      type: 'object',
      properties: { amount: { type: 'string' }, note: { type: 'string' } },
      required: ['amount'],
    },
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  async approve(
    @McpArgs() args: { amount: string; note?: string },
    @McpContext() ctx: McpOperationContext,
  ): Promise<McpInputRequiredResult | string> {
    const flow = await this.handles.resume<{ amount: string; note?: string }>(ctx);
    const answer = flow.data ? ctx.inputResponses.find('approval') : undefined;
    if (answer?.kind !== 'elicitation') {
      const draft = flow.data ?? { amount: args.amount, note: args.note ?? '' };
      return McpInputRequiredResult.builder()
        .inputRequest(
          'approval',
          McpInputRequest.elicitForm({
            message: `Approve ${draft.amount}?`,
            requestedSchema: approveSchema,
          }),
        )
        .applicationState(await flow.save(draft))
        .build();
    }
    // Resuming again within one call returns the same flow: nothing is redeemed twice.
    await (await this.handles.resume(ctx)).finish();
    this.runs.hit('handle_approve:approved');
    return answer.action === 'accept' && answer.content?.approve === true
      ? `Approved ${flow.data?.amount}`
      : 'Not approved';
  }

  @McpTool({
    name: 'handle_framework_confused',
    description: 'Saves under a handle but declares framework state (a server bug)',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  async confused(@McpContext() ctx: McpOperationContext): Promise<McpInputRequiredResult> {
    const flow = await this.handles.resume<string>(ctx);
    return McpInputRequiredResult.builder()
      .applicationState(await flow.save('x'))
      .build();
  }
}

@Module({ imports: [HandlerRunsModule], providers: [StateHandleFixtures] })
export class StateHandleFixturesModule {}

/** A repository that cannot be reached. */
export const UNREACHABLE_REPOSITORY: StateHandleRepository = {
  put: () => Promise.reject(new Error('connect ECONNREFUSED')),
  redeem: () => Promise.reject(new Error('connect ECONNREFUSED')),
  delete: () => Promise.reject(new Error('connect ECONNREFUSED')),
};

/** A repository provided by an application module, recording what it is asked. */
@Injectable()
export class RecordingStateHandleRepository implements StateHandleRepository {
  readonly records = new Map<string, StateHandleRecord>();
  readonly calls: string[] = [];

  put(handle: string, record: StateHandleRecord): Promise<void> {
    this.calls.push('put');
    this.records.set(handle, record);
    return Promise.resolve();
  }

  redeem(handle: string, binding: string, replacement: string) {
    this.calls.push('redeem');
    const record = this.records.get(handle);
    if (!record || record.binding !== binding) return Promise.resolve(undefined);
    this.records.delete(handle);
    this.records.set(replacement, record);
    return Promise.resolve(record);
  }

  delete(handle: string): Promise<void> {
    this.calls.push('delete');
    this.records.delete(handle);
    return Promise.resolve();
  }
}

@Module({
  providers: [
    RecordingStateHandleRepository,
    { provide: StateHandleRepository, useExisting: RecordingStateHandleRepository },
  ],
  exports: [StateHandleRepository],
})
export class RecordingStateHandleRepositoryModule {}
