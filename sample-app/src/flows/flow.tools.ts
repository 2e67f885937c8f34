import { Injectable } from '@nestjs/common';
import {
  LosslessNumber,
  McpArgs,
  McpInputRequest,
  McpInputRequiredResult,
  McpInputRequirement,
  McpMayRequestInput,
  McpContext,
  McpRequestStateMode,
  McpTool,
} from '../../../src/index';
import { PAYMENTS_SCOPE, scopesInOAuthMode } from '../demo-auth/sample-auth';
import { ApprovalAnswer, CollectRoundsDto, TransferFundsDto } from './flow.dtos';
import { SideEffectsService } from './side-effects.service';

const approvalSchema = {
  type: 'object',
  properties: { approve: { type: 'boolean', title: 'Approve this transfer?' } },
  required: ['approve'],
};

/** Multi-round flows that exercise input requests and sealed request state. */
@Injectable()
export class FlowTools {
  constructor(private readonly effects: SideEffectsService) {}

  @McpTool({
    name: 'transfer_funds',
    description: 'Transfers an amount to a recipient after the user approves it',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
    // Each approval state is accepted once: a replayed approval is refused before this runs.
    singleUse: true,
    // SAMPLE_AUTH=oauth: the token must grant payments:write, checked again on every round.
    scopes: scopesInOAuthMode(PAYMENTS_SCOPE),
    // MCP_AUDIT: the amount and the recipient are recorded in clear; the rest only as a digest.
    audit: { arguments: ['amount', 'to'] },
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  transferFunds(
    @McpArgs() args: TransferFundsDto,
    @McpContext() ctx: McpContext,
  ): McpInputRequiredResult | string {
    const state = ctx.requestState.framework<{ phase: string }>();
    const answer =
      state?.phase === 'awaiting-approval'
        ? ctx.inputResponses.find('approval', ApprovalAnswer)
        : undefined;
    if (!answer) {
      return McpInputRequiredResult.builder()
        .inputRequest(
          'approval',
          McpInputRequest.elicitForm({
            message: `Transfer ${args.amount} to ${args.to}?`,
            requestedSchema: approvalSchema,
          }),
        )
        .frameworkState({ phase: 'awaiting-approval' })
        .build();
    }
    if (answer.action !== 'accept' || answer.content?.approve !== true) return 'Transfer declined';
    this.effects.recordTransfer();
    return `Transferred ${args.amount} to ${args.to}`;
  }

  @McpTool({
    name: 'collect_rounds',
    description: 'Asks one question per round and joins the answers',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  collectRounds(
    @McpArgs() args: CollectRoundsDto,
    @McpContext() ctx: McpContext,
  ): McpInputRequiredResult | string {
    const state = ctx.requestState.framework<{ values: string[] }>();
    let values = state?.values ?? [];
    if (state) {
      // The question asked last round is the one after the values collected so far.
      const answer = ctx.inputResponses.find(`step-${values.length + 1}`);
      if (
        answer?.kind === 'elicitation' &&
        answer.action === 'accept' &&
        typeof answer.content?.value === 'string'
      ) {
        values = [...values, answer.content.value];
      }
    }
    if (values.length >= args.rounds) return values.join(',');
    const step = values.length + 1;
    return McpInputRequiredResult.builder()
      .inputRequest(
        `step-${step}`,
        McpInputRequest.elicitForm({
          message: `Value ${step} of ${args.rounds}?`,
          requestedSchema: {
            type: 'object',
            properties: { value: { type: 'string' } },
            required: ['value'],
          },
        }),
      )
      .frameworkState({ values })
      .build();
  }

  @McpTool({
    name: 'exact_amount',
    description: 'Asks for an amount and echoes the exact number text received',
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  exactAmount(@McpContext() ctx: McpContext): McpInputRequiredResult | string {
    const answer = ctx.inputResponses.find('amount');
    if (
      answer?.kind === 'elicitation' &&
      answer.action === 'accept' &&
      answer.content?.amount instanceof LosslessNumber
    ) {
      return answer.content.amount.value;
    }
    if (answer?.kind === 'elicitation' && answer.action !== 'accept')
      return `No amount (${answer.action})`;
    return McpInputRequiredResult.withInputRequest(
      'amount',
      McpInputRequest.elicitForm({
        message: 'Which amount?',
        requestedSchema: {
          type: 'object',
          properties: { amount: { type: 'number' } },
          required: ['amount'],
        },
      }),
    );
  }

  @McpTool({
    name: 'url_login',
    description: 'Sends the user to a sign-in page (needs URL elicitation)',
  })
  @McpMayRequestInput({ type: 'elicitation.url', requirement: McpInputRequirement.REQUIRED })
  urlLogin(@McpContext() ctx: McpContext): McpInputRequiredResult | string {
    this.effects.recordLoginAttempt();
    const answer = ctx.inputResponses.find('login');
    if (answer?.kind === 'elicitation')
      return answer.action === 'accept' ? 'Signed in' : `Sign-in ${answer.action}`;
    return McpInputRequiredResult.withInputRequest(
      'login',
      McpInputRequest.elicitUrl({
        message: 'Sign in to continue',
        url: 'https://login.example.com/authorize?flow=7f3a9c',
      }),
    );
  }

  @McpTool({
    name: 'side_effects',
    description: 'Reports how many transfers and login attempts happened',
  })
  sideEffects(): string {
    return JSON.stringify(this.effects.snapshot());
  }
}
