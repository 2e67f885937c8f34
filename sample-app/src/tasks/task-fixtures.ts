import { Injectable } from '@nestjs/common';
import {
  McpArgs,
  McpInputRequest,
  McpInputRequiredResult,
  McpMayRequestInput,
  McpProtocolException,
  McpContext,
  McpOperationContext,
  McpTool,
  McpToolError,
} from '../../../src/index';
import { sleep } from './sleep';

const filenameSchema = {
  type: 'object',
  properties: { filename: { type: 'string' } },
  required: ['filename'],
};

function accepted(ctx: McpOperationContext, key: string): Record<string, unknown> | undefined {
  const response = ctx.inputResponses.find(key);
  return response?.kind === 'elicitation' && response.action === 'accept'
    ? { ...response.content }
    : undefined;
}

/** The tasks extension fixtures of the conformance suite (SEP-2663). */
@Injectable()
export class TaskFixtures {
  @McpTool({
    name: 'greet',
    description: 'Greets someone (never a task)',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  })
  greet(@McpArgs() { name }: { name: string }): string {
    return `Hello, ${name}!`;
  }

  @McpTool({
    name: 'slow_compute',
    description: 'Sleeps for `seconds`, reporting progress, then answers (a task when asked)',
    taskSupport: 'optional',
    inputSchema: {
      type: 'object',
      properties: {
        seconds: { type: 'number', minimum: 0, maximum: 3600 },
        label: { type: 'string' },
      },
      required: ['seconds'],
    },
  })
  async slowCompute(
    @McpArgs() { seconds, label }: { seconds: number; label?: string },
    @McpContext() ctx: McpContext,
  ): Promise<string> {
    for (let second = 0; second < seconds; second++) {
      await ctx.progress.report(second, seconds, `${label ?? 'compute'}: ${second}/${seconds} s`);
      await sleep(Math.min(1, seconds - second) * 1000, ctx.signal);
    }
    return `Computed ${label ?? 'result'} after ${seconds} s`;
  }

  @McpTool({
    name: 'failing_job',
    description: 'Runs for a second, then reports a tool error (tasks only)',
    taskSupport: 'required',
  })
  async failingJob(@McpContext() ctx: McpContext): Promise<never> {
    await sleep(1000, ctx.signal);
    throw new McpToolError('The job failed: the input data is inconsistent');
  }

  @McpTool({
    name: 'protocol_error_job',
    description: 'Fails with a protocol error (the task ends failed)',
    taskSupport: 'optional',
  })
  async protocolErrorJob(@McpContext() ctx: McpContext): Promise<never> {
    await sleep(200, ctx.signal);
    throw new McpProtocolException(-32603, 'The job crashed', { stage: 'load' });
  }

  @McpTool({
    name: 'confirm_delete',
    description: 'Deletes a file once the user confirms (asks as a task)',
    taskSupport: 'optional',
    inputSchema: filenameSchema,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  confirmDelete(
    @McpArgs() { filename }: { filename: string },
    @McpContext() ctx: McpContext,
  ): McpInputRequiredResult | string {
    const answer = accepted(ctx, 'confirm');
    if (!answer && !ctx.inputResponses.find('confirm'))
      return McpInputRequiredResult.withInputRequest(
        'confirm',
        McpInputRequest.elicitForm({
          message: `Delete ${filename}?`,
          requestedSchema: {
            type: 'object',
            properties: { confirm: { type: 'boolean' } },
            required: ['confirm'],
          },
        }),
      );
    return answer?.confirm === true ? `Deleted ${filename}` : `Kept ${filename}`;
  }

  @McpTool({
    name: 'multi_input',
    description: 'Asks two questions at once (as a task)',
    taskSupport: 'optional',
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  multiInput(@McpContext() ctx: McpContext): McpInputRequiredResult | string {
    const name = accepted(ctx, 'name');
    const confirm = accepted(ctx, 'confirm');
    if (name && confirm)
      return `Thanks ${String(name.name)}, confirmed: ${String(confirm.confirm)}`;
    const builder = McpInputRequiredResult.builder();
    if (!name)
      builder.inputRequest(
        'name',
        McpInputRequest.elicitForm({
          message: 'Your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
        }),
      );
    if (!confirm)
      builder.inputRequest(
        'confirm',
        McpInputRequest.elicitForm({
          message: 'Proceed?',
          requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } } },
        }),
      );
    return builder.build();
  }

  @McpTool({
    name: 'test_tool_with_task',
    description: 'Asks for a name in a normal round, then finishes as a task',
    taskSupport: 'required',
    taskCreation: 'deferred',
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  async toolWithTask(@McpContext() ctx: McpContext): Promise<McpInputRequiredResult | string> {
    const answer = accepted(ctx, 'user_name');
    if (typeof answer?.name !== 'string')
      return McpInputRequiredResult.withInputRequest(
        'user_name',
        McpInputRequest.elicitForm({
          message: 'What is your name?',
          requestedSchema: {
            type: 'object',
            properties: { name: { type: 'string' } },
            required: ['name'],
          },
        }),
      );
    await ctx.task?.start();
    await sleep(300, ctx.signal);
    return `Hello, ${answer.name}! (finished as task ${ctx.task?.id ?? '?'})`;
  }
}
