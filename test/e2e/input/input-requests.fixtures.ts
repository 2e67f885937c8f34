import { Injectable, Module } from '@nestjs/common';
import { IsInt, IsNumberString, Max } from 'class-validator';
import { stringify } from 'lossless-json';
import {
  McpArgs,
  McpInputRequest,
  McpInputRequiredResult,
  McpInputRequirement,
  McpMayRequestInput,
  McpPrompt,
  McpContext,
  McpOperationContext,
  McpRequestStateMode,
  McpResource,
  McpTool,
} from '../../../src/index';
import { HandlerRuns, HandlerRunsModule } from '../../fixtures/handler-runs';

/** A typed answer: `amount` keeps its exact digits, `quantity` becomes a JavaScript number. */
export class OrderAnswer {
  @IsNumberString()
  amount!: string;

  @IsInt()
  @Max(10)
  quantity!: number;
}

/** A secret-looking form field a fixture may be asked to elicit. */
export interface SecretFieldArgs {
  field: string;
  title?: string;
  format?: string;
}

/** Tools, a prompt and a resource that exercise declarations, gating and the form safety policy. */
@Injectable()
export class InputRequestFixtures {
  constructor(private readonly runs: HandlerRuns) {}

  @McpTool({
    name: 'fixture_url_and_roots',
    description: 'Needs both a URL sign-in and the client roots',
    // Never emits state; declared so that tests can show capabilities are checked before state is opened.
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  @McpMayRequestInput({ type: 'elicitation.url', requirement: McpInputRequirement.REQUIRED })
  @McpMayRequestInput({ type: 'roots', requirement: McpInputRequirement.REQUIRED })
  urlAndRoots(@McpContext() ctx: McpOperationContext): McpInputRequiredResult | string {
    this.runs.hit('fixture_url_and_roots');
    const roots = ctx.inputResponses.find('roots');
    const login = ctx.inputResponses.find('login');
    if (roots?.kind === 'roots' && login?.kind === 'elicitation') {
      return `login ${login.action}, ${roots.roots.length} root(s)`;
    }
    return McpInputRequiredResult.builder()
      .inputRequest(
        'login',
        McpInputRequest.elicitUrl({
          message: 'Sign in',
          url: 'https://login.example.com/flows/abc123',
        }),
      )
      .inputRequest('roots', McpInputRequest.listRoots())
      .build();
  }

  @McpTool({
    name: 'fixture_conditional_form',
    description: 'Asks for a colour through a form (CONDITIONAL), carrying sealed state',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  conditionalForm(@McpContext() ctx: McpOperationContext): McpInputRequiredResult | string {
    this.runs.hit('fixture_conditional_form');
    const answer = ctx.inputResponses.find('colour');
    if (answer?.kind === 'elicitation' && answer.action === 'accept')
      return `colour: ${String(answer.content?.colour)}`;
    return McpInputRequiredResult.builder()
      .inputRequest(
        'colour',
        McpInputRequest.elicitForm({
          message: 'Favourite colour?',
          requestedSchema: {
            type: 'object',
            properties: { colour: { type: 'string' } },
            required: ['colour'],
          },
        }),
      )
      .frameworkState({ asked: 'colour' })
      .build();
  }

  @McpTool({
    name: 'fixture_undeclared_sampling',
    description: 'Asks the model without declaring any input',
  })
  undeclaredSampling(): McpInputRequiredResult {
    this.runs.hit('fixture_undeclared_sampling');
    return McpInputRequiredResult.withInputRequest(
      'summary',
      McpInputRequest.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'Summarise the secret plan' } }],
        maxTokens: 10,
      }),
    );
  }

  @McpTool({ name: 'fixture_sampling_tools', description: 'Asks the model, offering it a tool' })
  @McpMayRequestInput({ type: 'sampling.tools' })
  samplingTools(@McpContext() ctx: McpOperationContext): McpInputRequiredResult | string {
    const answer = ctx.inputResponses.find('plan');
    if (answer?.kind === 'sampling') return `model ${answer.model} answered`;
    return McpInputRequiredResult.withInputRequest(
      'plan',
      McpInputRequest.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'Plan the trip' } }],
        maxTokens: 50,
        tools: [{ name: 'weather', inputSchema: { type: 'object', properties: {} } }],
      }),
    );
  }

  @McpTool({
    name: 'fixture_misdeclared_sampling',
    description: 'Declares a form but asks the model',
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  misdeclaredSampling(): McpInputRequiredResult {
    this.runs.hit('fixture_misdeclared_sampling');
    return McpInputRequiredResult.withInputRequest(
      'summary',
      McpInputRequest.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'Summarise the secret plan' } }],
        maxTokens: 10,
      }),
    );
  }

  @McpTool({
    name: 'fixture_secret_form',
    description: 'Tries to elicit a secret field through a form',
    inputSchema: {
      type: 'object',
      properties: {
        field: { type: 'string' },
        title: { type: 'string' },
        format: { type: 'string' },
      },
      required: ['field'],
    },
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  secretForm(@McpArgs() args: SecretFieldArgs): McpInputRequiredResult {
    this.runs.hit('fixture_secret_form');
    const property: Record<string, unknown> = { type: 'string' };
    if (args.title !== undefined) property.title = args.title;
    if (args.format !== undefined) property.format = args.format;
    return McpInputRequiredResult.withInputRequest(
      'credentials',
      McpInputRequest.elicitForm({
        message: 'Sign in',
        requestedSchema: {
          type: 'object',
          properties: { [args.field]: property },
          required: [args.field],
        },
      }),
    );
  }

  @McpTool({
    name: 'fixture_url_policy',
    description: 'Sends the user to the URL it is given',
    inputSchema: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
  })
  @McpMayRequestInput({ type: 'elicitation.url' })
  urlPolicy(@McpArgs() args: { url: string }): McpInputRequiredResult {
    this.runs.hit('fixture_url_policy');
    return McpInputRequiredResult.withInputRequest(
      'go',
      McpInputRequest.elicitUrl({ message: 'Continue in the browser', url: args.url }),
    );
  }

  @McpTool({
    name: 'fixture_bad_builder',
    description: 'Builds an invalid input-required result on purpose',
    inputSchema: {
      type: 'object',
      properties: { variant: { type: 'string' } },
      required: ['variant'],
    },
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  badBuilder(@McpArgs() args: { variant: string }): McpInputRequiredResult {
    this.runs.hit('fixture_bad_builder');
    const ask = () =>
      McpInputRequest.elicitForm({
        message: 'Name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      });
    switch (args.variant) {
      case 'duplicate-key':
        return McpInputRequiredResult.builder()
          .inputRequest('name', ask())
          .inputRequest('name', ask())
          .build();
      case 'empty-key':
        return McpInputRequiredResult.builder().inputRequest('', ask()).build();
      case 'nothing':
        return McpInputRequiredResult.builder().build();
      case 'nested-schema':
        return McpInputRequiredResult.withInputRequest(
          'address',
          McpInputRequest.elicitForm({
            message: 'Address?',
            requestedSchema: {
              type: 'object',
              properties: {
                address: { type: 'object', properties: { street: { type: 'string' } } },
              },
            },
          }),
        );
      default:
        return McpInputRequiredResult.withInputRequest('name', ask());
    }
  }

  @McpTool({
    name: 'fixture_profile_form',
    description: 'Asks for a typed profile form, echoing what it received',
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  profileForm(@McpContext() ctx: McpOperationContext): McpInputRequiredResult | string {
    const answer = ctx.inputResponses.find('profile');
    if (answer?.kind === 'elicitation') {
      // lossless-json writes exact numbers as the digits received.
      return stringify({
        action: answer.action,
        content: answer.content ?? null,
        keys: [...ctx.inputResponses.asMap().keys()],
      }) as string;
    }
    return McpInputRequiredResult.withInputRequest(
      'profile',
      McpInputRequest.elicitForm({
        message: 'Your profile',
        requestedSchema: {
          type: 'object',
          properties: {
            nickname: { type: 'string', maxLength: 20 },
            age: { type: 'integer', minimum: 0 },
            newsletter: { type: 'boolean' },
            topics: { type: 'array', items: { type: 'string', enum: ['nest', 'mcp'] } },
          },
          required: ['nickname'],
        },
      }),
    );
  }

  @McpTool({
    name: 'fixture_typed_answer',
    description: 'Reads an order form into a validated DTO',
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  typedAnswer(@McpContext() ctx: McpOperationContext): McpInputRequiredResult | string {
    const answer = ctx.inputResponses.find('order', OrderAnswer);
    if (!answer) {
      return McpInputRequiredResult.withInputRequest(
        'order',
        McpInputRequest.elicitForm({
          message: 'Order?',
          requestedSchema: {
            type: 'object',
            properties: { amount: { type: 'number' }, quantity: { type: 'integer', maximum: 10 } },
            required: ['amount', 'quantity'],
          },
        }),
      );
    }
    if (answer.action !== 'accept' || !answer.content) return `no order (${answer.action})`;
    const { amount, quantity } = answer.content;
    return `${answer.content.constructor.name}: amount ${typeof amount} ${amount}, quantity ${typeof quantity} ${quantity}`;
  }

  @McpResource({
    uri: 'fixture://workspace',
    name: 'workspace',
    description: 'Lists the client roots',
    mimeType: 'text/plain',
  })
  @McpMayRequestInput({ type: 'roots' })
  workspace(@McpContext() ctx: McpOperationContext): McpInputRequiredResult | string {
    this.runs.hit('fixture://workspace');
    const roots = ctx.inputResponses.find('roots');
    if (roots?.kind !== 'roots')
      return McpInputRequiredResult.withInputRequest('roots', McpInputRequest.listRoots());
    return `workspace roots: ${roots.roots.map((root) => root.uri).join(' ')}`;
  }

  @McpPrompt({
    name: 'fixture_sampled_prompt',
    description: 'Asks the client model for a topic first',
  })
  @McpMayRequestInput({ type: 'sampling', requirement: McpInputRequirement.REQUIRED })
  sampledPrompt(@McpContext() ctx: McpOperationContext): McpInputRequiredResult | string {
    this.runs.hit('fixture_sampled_prompt');
    const topic = ctx.inputResponses.find('topic');
    if (topic?.kind !== 'sampling') {
      return McpInputRequiredResult.withInputRequest(
        'topic',
        McpInputRequest.createMessage({
          messages: [{ role: 'user', content: { type: 'text', text: 'Pick a topic' } }],
          maxTokens: 5,
        }),
      );
    }
    const content = topic.content as { type?: string; text?: string };
    return `Write about ${content.text ?? '?'} (chosen by ${topic.model})`;
  }
}

@Module({ imports: [HandlerRunsModule], providers: [InputRequestFixtures] })
export class InputRequestFixturesModule {}
