import { Injectable, Module } from '@nestjs/common';
import {
  McpContext,
  McpInputRequest,
  McpInputRequiredResult,
  McpMayRequestInput,
  McpRequestStateMode,
  McpStateHandles,
  McpTool,
} from '../../../src/index';

const valueSchema = {
  type: 'object' as const,
  properties: { value: { type: 'string' as const } },
  required: ['value'],
};

/** Every flow id `flow_replay` ran with, in this process (its instances share it). */
export const REPLAY_FLOW_IDS: string[] = [];

/** Tools that answer, on their last round, the flow id each of their rounds saw. */
@Injectable()
export class FlowIdFixtures {
  constructor(private readonly handles: McpStateHandles) {}

  @McpTool({
    name: 'flow_rounds',
    description: 'Three rounds of framework state; answers the flow ids it saw',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
    singleUse: true,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  rounds(@McpContext() ctx: McpContext): McpInputRequiredResult | string {
    const seen = [...(ctx.requestState.framework<{ seen: string[] }>()?.seen ?? []), ctx.flowId];
    if (seen.length === 3) return JSON.stringify(seen);
    return McpInputRequiredResult.builder()
      .inputRequest(
        `step-${seen.length}`,
        McpInputRequest.elicitForm({ message: 'Next?', requestedSchema: valueSchema }),
      )
      .frameworkState({ seen })
      .build();
  }

  @McpTool({
    name: 'flow_app_state',
    description: 'Three rounds of application-protected state; answers the flow ids it saw',
    requestState: McpRequestStateMode.APPLICATION_PROTECTED,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  appState(@McpContext() ctx: McpContext): McpInputRequiredResult | string {
    const before = ctx.requestState.application;
    const seen = [...(before === undefined ? [] : before.split(',')), ctx.flowId];
    if (seen.length === 3) return JSON.stringify(seen);
    return McpInputRequiredResult.builder()
      .inputRequest(
        `step-${seen.length}`,
        McpInputRequest.elicitForm({ message: 'Next?', requestedSchema: valueSchema }),
      )
      .applicationState(seen.join(','))
      .build();
  }

  @McpTool({
    name: 'flow_handle',
    description: 'Three rounds kept under a rotating state handle; answers the flow ids it saw',
    requestState: McpRequestStateMode.APPLICATION_PROTECTED,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  async handle(@McpContext() ctx: McpContext): Promise<McpInputRequiredResult | string> {
    const flow = await this.handles.resume<string[]>(ctx);
    const seen = [...(flow.data ?? []), ctx.flowId];
    if (seen.length === 3) {
      await flow.finish();
      return JSON.stringify(seen);
    }
    return McpInputRequiredResult.builder()
      .inputRequest(
        `step-${seen.length}`,
        McpInputRequest.elicitForm({ message: 'Next?', requestedSchema: valueSchema }),
      )
      .applicationState(await flow.save(seen))
      .build();
  }

  @McpTool({
    name: 'flow_replay',
    description:
      'Two asks through the replay ledger; answers the flow id and the rounds that saw it',
    replay: true,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  async replay(@McpContext() ctx: McpContext): Promise<string> {
    REPLAY_FLOW_IDS.push(ctx.flowId);
    await ctx.elicit({ message: 'First?', requestedSchema: valueSchema });
    await ctx.elicit({ message: 'Second?', requestedSchema: valueSchema });
    return ctx.flowId;
  }
}

@Module({ providers: [FlowIdFixtures] })
export class FlowIdFixturesModule {}
