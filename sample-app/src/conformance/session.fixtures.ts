import { Injectable } from '@nestjs/common';
import {
  McpArgs,
  McpContext,
  McpInputRequest,
  McpInputRequiredResult,
  McpMayRequestInput,
  McpOperationContext,
  McpResource,
  McpTool,
} from '../../../src/index';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const userSchema = {
  type: 'object',
  properties: {
    username: { type: 'string', description: "User's response" },
    email: { type: 'string', description: "User's email address" },
  },
  required: ['username', 'email'],
};

const defaultsSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', default: 'John Doe' },
    age: { type: 'integer', default: 30 },
    score: { type: 'number', default: 95.5 },
    status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', default: true },
  },
};

const enumsSchema = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    },
    legacyEnum: {
      type: 'string',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: {
      type: 'array',
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    },
    titledMulti: {
      type: 'array',
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    },
  },
};

/**
 * The fixtures the conformance suite's 2025-11-25 run adds: a 2025-era client gets their input
 * requests as real server-to-client requests over its session, from the same input-required
 * results a 2026-07-28 client gets.
 */
@Injectable()
export class SessionFixtures {
  @McpTool({
    name: 'test_tool_with_logging',
    description: 'Sends three log messages while it runs',
  })
  async withLogging(@McpContext() ctx: McpOperationContext): Promise<string> {
    await ctx.logger.log('info', 'Tool execution started');
    await sleep(50);
    await ctx.logger.log('info', 'Tool processing data');
    await sleep(50);
    await ctx.logger.log('info', 'Tool execution completed');
    return 'Tool with logging executed successfully';
  }

  @McpTool({
    name: 'test_sampling',
    description: "Asks the client's model to answer a prompt",
    inputSchema: {
      type: 'object',
      properties: { prompt: { type: 'string' } },
      required: ['prompt'],
    },
  })
  @McpMayRequestInput({ type: 'sampling' })
  sampling(
    @McpArgs('prompt') prompt: string,
    @McpContext() ctx: McpOperationContext,
  ): McpInputRequiredResult | string {
    const response = ctx.inputResponses.find('sample');
    if (response?.kind !== 'sampling')
      return McpInputRequiredResult.withInputRequest(
        'sample',
        McpInputRequest.createMessage({
          messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
          maxTokens: 100,
        }),
      );
    const content = response.content as { type?: string; text?: string };
    return `LLM response: ${content.type === 'text' ? content.text : '(non-text content)'}`;
  }

  @McpTool({
    name: 'test_elicitation',
    description: 'Asks the user for a username and an email',
    inputSchema: {
      type: 'object',
      properties: { message: { type: 'string' } },
      required: ['message'],
    },
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  elicitation(
    @McpArgs('message') message: string,
    @McpContext() ctx: McpOperationContext,
  ): McpInputRequiredResult | string {
    return this.ask(ctx, 'user', message, userSchema, 'User response');
  }

  @McpTool({
    name: 'test_elicitation_sep1034_defaults',
    description: 'Asks for a form whose fields have defaults (SEP-1034)',
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  defaults(@McpContext() ctx: McpOperationContext): McpInputRequiredResult | string {
    return this.ask(ctx, 'defaults', 'Please review your details', defaultsSchema);
  }

  @McpTool({
    name: 'test_elicitation_sep1330_enums',
    description: 'Asks for a form with every kind of enum (SEP-1330)',
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  enums(@McpContext() ctx: McpOperationContext): McpInputRequiredResult | string {
    return this.ask(ctx, 'enums', 'Please choose', enumsSchema);
  }

  @McpResource({
    uri: 'test://watched-resource',
    name: 'watched-resource',
    description: 'A resource clients may subscribe to',
    mimeType: 'text/plain',
  })
  watched(): string {
    return 'Watched resource content';
  }

  private ask(
    ctx: McpOperationContext,
    key: string,
    message: string,
    requestedSchema: Record<string, unknown>,
    prefix = 'Elicitation completed',
  ): McpInputRequiredResult | string {
    const response = ctx.inputResponses.find(key);
    if (response?.kind !== 'elicitation')
      return McpInputRequiredResult.withInputRequest(
        key,
        McpInputRequest.elicitForm({ message, requestedSchema }),
      );
    return `${prefix}: action=${response.action}, content=${JSON.stringify(response.content ?? {})}`;
  }
}
