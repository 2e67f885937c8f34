import { Injectable, Module } from '@nestjs/common';
import { IsIn, IsString, MaxLength } from 'class-validator';
import {
  McpArgs,
  McpInputRequest,
  McpInputRequiredResult,
  McpMayRequestInput,
  McpPrompt,
  McpContext,
  McpOperationContext,
  McpResource,
  McpRequestStateMode,
  McpTool,
} from '../../../src/index';
import { HandlerRuns, HandlerRunsModule } from '../../fixtures/handler-runs';
import { askOnce, requiredField } from '../../utils/input-asks';

export const nameQuestion = {
  message: 'What is your name?',
  requestedSchema: {
    type: 'object',
    properties: { name: { type: 'string', maxLength: 64 } },
    required: ['name'],
  },
};
export const planQuestion = {
  message: 'Which plan?',
  requestedSchema: {
    type: 'object',
    properties: { plan: { type: 'string', enum: ['free', 'pro'] } },
    required: ['plan'],
  },
};
const confirmSchema = requiredField('confirm', 'boolean');

class NameAnswer {
  @IsString() @MaxLength(64) name!: string;
}

class PlanAnswer {
  @IsIn(['free', 'pro']) plan!: 'free' | 'pro';
}

const pathSchema = requiredField('path', 'string');

/**
 * Replay-style tools. Each counts its executions (`<name>:run`) and, after its last ask, the side
 * effect it performs once per completed flow (`<name>:done`).
 */
@Injectable()
export class ReplayFixtures {
  constructor(private readonly runs: HandlerRuns) {}

  @McpTool({ name: 'replay_signup', description: 'Asks a name, then a plan', replay: true })
  @McpMayRequestInput({ type: 'elicitation.form' })
  async signup(@McpContext() ctx: McpOperationContext): Promise<string> {
    this.runs.hit('replay_signup:run');
    const name = await ctx.elicit(nameQuestion, NameAnswer);
    if (name.action !== 'accept' || !name.content) return 'Cancelled';
    const plan = await ctx.elicit(planQuestion, PlanAnswer);
    if (plan.action !== 'accept' || !plan.content) return 'Cancelled';
    this.runs.hit('replay_signup:done');
    return `Welcome ${name.content.name} on ${plan.content.plan}`;
  }

  @McpTool({
    name: 'replay_together',
    description: 'Asks a name, a completion and the roots in one round',
    replay: true,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  @McpMayRequestInput({ type: 'sampling' })
  @McpMayRequestInput({ type: 'roots' })
  async together(@McpContext() ctx: McpOperationContext): Promise<string> {
    this.runs.hit('replay_together:run');
    const [name, greeting, roots] = await Promise.all([
      ctx.elicit(nameQuestion),
      ctx.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }],
        maxTokens: 20,
      }),
      ctx.listRoots(),
    ]);
    this.runs.hit('replay_together:done');
    const text = (greeting.content as { text?: string }).text;
    return `${String(name.content?.name)} | ${String(text)} | ${roots.roots.length} root(s)`;
  }

  @McpTool({
    name: 'replay_shifty',
    description: 'Asks a question that changes every time it runs (a broken replay handler)',
    replay: true,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  async shifty(@McpContext() ctx: McpOperationContext): Promise<string> {
    this.runs.hit('replay_shifty:run');
    const answer = await ctx.elicit({
      message: `Attempt ${this.runs.count('replay_shifty:run')}: proceed?`,
      requestedSchema: confirmSchema,
    });
    this.runs.hit('replay_shifty:done');
    return answer.action;
  }

  @McpTool({
    name: 'replay_undeclared',
    description: 'Declares forms but asks for roots',
    replay: true,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  async undeclared(@McpContext() ctx: McpOperationContext): Promise<string> {
    const roots = await ctx.listRoots();
    return `${roots.roots.length}`;
  }

  @McpTool({
    name: 'replay_once',
    description: 'Deletes after a confirmation; replay-style and single-use',
    replay: true,
    singleUse: true,
    inputSchema: pathSchema,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  async once(
    @McpArgs('path') path: string,
    @McpContext() ctx: McpOperationContext,
  ): Promise<string> {
    const confirm = await ctx.elicit({
      message: `Delete ${path}?`,
      requestedSchema: confirmSchema,
    });
    if (confirm.action !== 'accept' || confirm.content?.confirm !== true) return 'Kept';
    this.runs.hit('replay_once:done');
    return `Deleted ${path}`;
  }

  /** Round 1 asks the name (ledger); round 2 returns its own result and state; round 3 completes. */
  @McpTool({
    name: 'replay_mixed',
    description: 'Mixes a ctx ask with its own input-required result and framework state',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
    replay: true,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  async mixed(@McpContext() ctx: McpOperationContext): Promise<McpInputRequiredResult | string> {
    const own = ctx.requestState.framework<{ confirming: string }>();
    this.runs.hit(`replay_mixed:own=${JSON.stringify(own ?? null)}`);
    const name = await ctx.elicit(nameQuestion, NameAnswer);
    const who = name.content?.name ?? 'nobody';
    if (own?.confirming !== who) {
      return askOnce(
        'confirm',
        McpInputRequest.elicitForm({
          message: `Is ${who} right?`,
          requestedSchema: confirmSchema,
        }),
        { confirming: who },
      );
    }
    const confirm = ctx.inputResponses.find('confirm');
    return `${who}: ${confirm?.kind === 'elicitation' ? confirm.action : 'unanswered'}`;
  }

  @McpPrompt({
    name: 'replay_prompt',
    description: 'Asks for a topic, then writes about it',
    replay: true,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  async prompt(@McpContext() ctx: McpOperationContext): Promise<string> {
    const topic = await ctx.elicit({
      message: 'Topic?',
      requestedSchema: { type: 'object', properties: { topic: { type: 'string' } } },
    });
    return `Write about ${String(topic.content?.topic)}`;
  }

  @McpResource({ uri: 'replay://roots', description: 'The client roots, asked for', replay: true })
  @McpMayRequestInput({ type: 'roots' })
  async rootsResource(@McpContext() ctx: McpOperationContext): Promise<string> {
    const { roots } = await ctx.listRoots();
    return roots.map((root) => root.uri).join(' ');
  }

  @McpTool({ name: 'not_replay', description: 'Asks through ctx without replay: true' })
  @McpMayRequestInput({ type: 'elicitation.form' })
  async notReplay(@McpContext() ctx: McpOperationContext): Promise<string> {
    const answer = await ctx.elicit(nameQuestion);
    return answer.action;
  }
}

@Module({ imports: [HandlerRunsModule], providers: [ReplayFixtures] })
export class ReplayFixturesModule {}

/** `replay: true` without anything declared: startup must fail. */
@Injectable()
export class ReplayWithoutDeclarations {
  @McpTool({ description: 'Replay with nothing to ask', replay: true })
  orphan(): string {
    return 'never served';
  }
}

/** `replay: true` with application-protected state: startup must fail. */
@Injectable()
export class ReplayWithApplicationState {
  @McpTool({
    description: 'Replay whose state the application protects',
    replay: true,
    requestState: McpRequestStateMode.APPLICATION_PROTECTED,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  orphan(): string {
    return 'never served';
  }
}
