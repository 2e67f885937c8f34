import { Injectable } from '@nestjs/common';
import { IsIn, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { McpMayRequestInput, McpContext, McpTool } from '../../../src/index';

class NameAnswer {
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  name!: string;
}

const PLANS = ['free', 'team', 'enterprise'] as const;

class PlanAnswer {
  @IsIn(PLANS)
  plan!: (typeof PLANS)[number];
}

const nameQuestion = {
  message: 'What should we call you?',
  requestedSchema: {
    type: 'object',
    properties: { name: { type: 'string', title: 'Your name', minLength: 1, maxLength: 64 } },
    required: ['name'],
  },
};

const planQuestion = (name: string) => ({
  message: `Which plan would you like, ${name}?`,
  requestedSchema: {
    type: 'object',
    properties: { plan: { type: 'string', title: 'Plan', enum: [...PLANS] } },
    required: ['plan'],
  },
});

/**
 * A replay-style tool: written top to bottom with two `ctx.elicit` calls. Every round runs it from
 * the top, answered asks return at once, and the account is created after the last ask. Answers
 * are not bound into the state (only the arguments are), so the last state could be presented
 * again with another plan: `singleUse` makes each state count once, and the account is created
 * once per flow.
 */
@Injectable()
export class OnboardUserTool {
  private readonly accounts = new Map<string, string>();

  @McpTool({
    name: 'onboard_user',
    description: 'Signs a user up: asks for their name, then for a plan',
    replay: true,
    singleUse: true,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  async onboardUser(@McpContext() ctx: McpContext): Promise<string> {
    const name = await ctx.elicit(nameQuestion, NameAnswer);
    if (name.action !== 'accept' || !name.content) return 'Onboarding cancelled';
    const plan = await ctx.elicit(planQuestion(name.content.name), PlanAnswer);
    if (plan.action !== 'accept' || !plan.content) return 'Onboarding cancelled';
    // After the last ask: runs once per completed flow.
    this.accounts.set(name.content.name, plan.content.plan);
    return `Welcome, ${name.content.name}! You are on the ${plan.content.plan} plan.`;
  }
}
