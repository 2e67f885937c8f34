import { Injectable, Module } from '@nestjs/common';
import {
  McpArgs,
  McpInputRequest,
  McpInputRequiredResult,
  McpMayRequestInput,
  McpPrompt,
  McpContext,
  McpOperationContext,
  McpRequestStateMode,
  McpTool,
} from '../../../src/index';
import { HandlerRuns, HandlerRunsModule } from '../../fixtures/handler-runs';
import { askOnce } from '../../utils/input-asks';

const nextSchema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };

/** What a state fixture saw on a retry. */
function accessors(ctx: McpOperationContext): string {
  return JSON.stringify({
    application: ctx.requestState.application ?? null,
    framework: ctx.requestState.framework() ?? null,
  });
}

/** Tools of every request-state mode; each counts its runs in {@link HandlerRuns}. */
@Injectable()
export class RequestStateFixtures {
  constructor(private readonly runs: HandlerRuns) {}

  @McpTool({
    name: 'fixture_probe',
    description: 'Round 1 seals {step: 1}; a retry reports the state it opened',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
    inputSchema: { type: 'object', properties: { pad: { type: 'integer' } } },
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  probe(
    @McpArgs() args: { pad?: number },
    @McpContext() ctx: McpOperationContext,
  ): McpInputRequiredResult | string {
    this.runs.hit('fixture_probe');
    const state = ctx.requestState.framework<{ step: number; pad?: string }>();
    if (state) return `continued: ${accessors(ctx)}`.slice(0, 200);
    return askOnce(
      'next',
      McpInputRequest.elicitForm({ message: 'Continue?', requestedSchema: nextSchema }),
      args.pad ? { step: 1, pad: 'x'.repeat(args.pad) } : { step: 1 },
    );
  }

  @McpTool({
    name: 'fixture_app_state',
    description: 'Emits an application-protected state; a retry reports both accessors',
    requestState: McpRequestStateMode.APPLICATION_PROTECTED,
    inputSchema: {
      type: 'object',
      properties: { state: { type: 'string' }, repeat: { type: 'integer' } },
      required: ['state'],
    },
  })
  appState(
    @McpArgs() args: { state: string; repeat?: number },
    @McpContext() ctx: McpOperationContext,
  ): McpInputRequiredResult | string {
    this.runs.hit('fixture_app_state');
    if (ctx.requestState.application !== undefined) return accessors(ctx);
    return McpInputRequiredResult.builder()
      .applicationState(args.state.repeat(args.repeat ?? 1))
      .build();
  }

  @McpTool({
    name: 'fixture_no_state',
    description: 'Declares no request state; reports both accessors',
  })
  noState(@McpContext() ctx: McpOperationContext): string {
    this.runs.hit('fixture_no_state');
    return accessors(ctx);
  }

  @McpTool({
    name: 'fixture_same_name',
    description: 'A tool sharing its name with a prompt; both seal state',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  sameNameTool(@McpContext() ctx: McpOperationContext): McpInputRequiredResult | string {
    this.runs.hit('fixture_same_name tool');
    if (ctx.requestState.framework()) return `tool continued: ${accessors(ctx)}`;
    return askOnce(
      'next',
      McpInputRequest.elicitForm({ message: 'Continue?', requestedSchema: nextSchema }),
      { from: 'tool' },
    );
  }

  @McpPrompt({
    name: 'fixture_same_name',
    description: 'A prompt sharing its name with a tool; both seal state',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  sameNamePrompt(@McpContext() ctx: McpOperationContext): McpInputRequiredResult | string {
    this.runs.hit('fixture_same_name prompt');
    if (ctx.requestState.framework()) return `prompt continued: ${accessors(ctx)}`;
    return askOnce(
      'next',
      McpInputRequest.elicitForm({ message: 'Continue?', requestedSchema: nextSchema }),
      { from: 'prompt' },
    );
  }

  @McpTool({
    name: 'fixture_wrong_mode',
    description: 'Declares no request state but returns framework state',
  })
  wrongMode(): McpInputRequiredResult {
    this.runs.hit('fixture_wrong_mode');
    return McpInputRequiredResult.builder().frameworkState({ sneaky: true }).build();
  }
}

@Module({ imports: [HandlerRunsModule], providers: [RequestStateFixtures] })
export class RequestStateFixturesModule {}
