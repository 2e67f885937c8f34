import { Injectable } from '@nestjs/common';
import {
  McpInputRequest,
  McpInputRequiredResult,
  McpMayRequestInput,
  McpPrompt,
  McpContext,
  McpOperationContext,
  McpRequestStateMode,
  McpTool,
} from '../../../src/index';

const nameSchema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const confirmSchema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };

function askName(message = 'What is your name?'): McpInputRequest {
  return McpInputRequest.elicitForm({ message, requestedSchema: nameSchema });
}

function acceptedText(ctx: McpOperationContext, key: string, field: string): string | undefined {
  const response = ctx.inputResponses.find(key);
  if (response?.kind !== 'elicitation' || response.action !== 'accept') return undefined;
  const value = response.content?.[field];
  return typeof value === 'string' ? value : undefined;
}

/** Multi round-trip (SEP-2322) fixtures of the conformance suite. */
@Injectable()
export class InputRequiredFixtures {
  @McpTool({
    name: 'test_input_required_result_elicitation',
    description: 'Asks for the user name, then greets',
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  elicitation(@McpContext() ctx: McpContext): McpInputRequiredResult | string {
    const response = ctx.inputResponses.find('user_name');
    if (response?.kind !== 'elicitation')
      return McpInputRequiredResult.withInputRequest('user_name', askName());
    if (response.action !== 'accept') return `No name given (${response.action})`;
    const name = response.content?.name;
    return `Hello, ${typeof name === 'string' ? name : 'unknown'}!`;
  }

  @McpTool({
    name: 'test_input_required_result_sampling',
    description: 'Asks the client model a question',
  })
  @McpMayRequestInput({ type: 'sampling' })
  sampling(@McpContext() ctx: McpContext): McpInputRequiredResult | string {
    const response = ctx.inputResponses.find('sample_request');
    if (response?.kind !== 'sampling') {
      return McpInputRequiredResult.withInputRequest(
        'sample_request',
        McpInputRequest.createMessage({
          messages: [
            { role: 'user', content: { type: 'text', text: 'What is the capital of France?' } },
          ],
          maxTokens: 100,
        }),
      );
    }
    const content = response.content as { type?: string; text?: string };
    return `Sampling result: ${content.type === 'text' ? content.text : '(non-text content)'}`;
  }

  @McpTool({ name: 'test_input_required_result_list_roots', description: 'Lists the client roots' })
  @McpMayRequestInput({ type: 'roots' })
  listRoots(@McpContext() ctx: McpContext): McpInputRequiredResult | string {
    const response = ctx.inputResponses.find('roots_request');
    if (response?.kind !== 'roots')
      return McpInputRequiredResult.withInputRequest('roots_request', McpInputRequest.listRoots());
    return `Found ${response.roots.length} root(s)`;
  }

  @McpTool({
    name: 'test_input_required_result_request_state',
    description: 'Asks for confirmation and carries sealed state',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  requestState(@McpContext() ctx: McpContext): McpInputRequiredResult | string {
    const state = ctx.requestState.framework<{ phase: string }>();
    const response = ctx.inputResponses.find('confirm');
    if (state?.phase !== 'awaiting-confirmation' || response?.kind !== 'elicitation') {
      return McpInputRequiredResult.builder()
        .inputRequest(
          'confirm',
          McpInputRequest.elicitForm({ message: 'Please confirm', requestedSchema: confirmSchema }),
        )
        .frameworkState({ phase: 'awaiting-confirmation' })
        .build();
    }
    return response.action === 'accept' && response.content?.ok === true
      ? 'state-ok: confirmed'
      : 'state-ok: not confirmed';
  }

  @McpTool({
    name: 'test_input_required_result_multiple_inputs',
    description: 'Asks for a name, a sampled greeting and the roots at once',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  @McpMayRequestInput({ type: 'sampling' })
  @McpMayRequestInput({ type: 'roots' })
  multipleInputs(@McpContext() ctx: McpContext): McpInputRequiredResult | string {
    const name = acceptedText(ctx, 'user_name', 'name');
    const greeting = ctx.inputResponses.find('greeting');
    const roots = ctx.inputResponses.find('client_roots');
    if (
      ctx.requestState.framework() === undefined ||
      name === undefined ||
      greeting?.kind !== 'sampling' ||
      roots?.kind !== 'roots'
    ) {
      return McpInputRequiredResult.builder()
        .inputRequest('user_name', askName())
        .inputRequest(
          'greeting',
          McpInputRequest.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
            maxTokens: 50,
          }),
        )
        .inputRequest('client_roots', McpInputRequest.listRoots())
        .frameworkState({ asked: ['user_name', 'greeting', 'client_roots'] })
        .build();
    }
    return `Received all inputs: name=${name}, greeting from ${greeting.model}, ${roots.roots.length} root(s)`;
  }

  @McpTool({
    name: 'test_input_required_result_multi_round',
    description: 'Asks two questions in two rounds, carrying answers in sealed state',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  multiRound(@McpContext() ctx: McpContext): McpInputRequiredResult | string {
    const state = ctx.requestState.framework<{ step: number; name?: string }>();
    if (state?.step === 1) {
      const name = acceptedText(ctx, 'step1', 'name');
      if (name !== undefined) {
        return McpInputRequiredResult.builder()
          .inputRequest(
            'step2',
            McpInputRequest.elicitForm({
              message: 'Step 2: What is your favorite color?',
              requestedSchema: {
                type: 'object',
                properties: { color: { type: 'string' } },
                required: ['color'],
              },
            }),
          )
          .frameworkState({ step: 2, name })
          .build();
      }
    }
    if (state?.step === 2) {
      const color = acceptedText(ctx, 'step2', 'color');
      if (color !== undefined)
        return `Multi-round complete for ${state.name ?? 'unknown'} who likes ${color}`;
    }
    return McpInputRequiredResult.builder()
      .inputRequest('step1', askName('Step 1: What is your name?'))
      .frameworkState({ step: 1 })
      .build();
  }

  @McpTool({
    name: 'test_input_required_result_tampered_state',
    description: 'Carries sealed state that must be rejected when tampered with',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  tamperedState(@McpContext() ctx: McpContext): McpInputRequiredResult | string {
    const response = ctx.inputResponses.find('confirm');
    if (ctx.requestState.framework() === undefined || response?.kind !== 'elicitation') {
      return McpInputRequiredResult.builder()
        .inputRequest(
          'confirm',
          McpInputRequest.elicitForm({ message: 'Please confirm', requestedSchema: confirmSchema }),
        )
        .frameworkState({ phase: 'awaiting-confirmation' })
        .build();
    }
    return 'Confirmed with intact state';
  }

  @McpTool({
    name: 'test_input_required_result_capabilities',
    description: 'Asks only for what the client declared it can do',
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  @McpMayRequestInput({ type: 'sampling' })
  capabilities(@McpContext() ctx: McpContext): McpInputRequiredResult | string {
    if (ctx.inputResponses.find('sample_input') || ctx.inputResponses.find('user_input'))
      return 'Input received';
    const builder = McpInputRequiredResult.builder();
    if (ctx.clientCapabilities.elicitation) builder.inputRequest('user_input', askName());
    if (ctx.clientCapabilities.sampling) {
      builder.inputRequest(
        'sample_input',
        McpInputRequest.createMessage({
          messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }],
          maxTokens: 20,
        }),
      );
    }
    return ctx.clientCapabilities.elicitation || ctx.clientCapabilities.sampling
      ? builder.build()
      : 'The client declared neither elicitation nor sampling';
  }

  @McpPrompt({
    name: 'test_input_required_result_prompt',
    description: 'A prompt that first asks for context',
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  prompt(@McpContext() ctx: McpContext): McpInputRequiredResult | string {
    const context = acceptedText(ctx, 'user_context', 'context');
    if (context === undefined) {
      return McpInputRequiredResult.withInputRequest(
        'user_context',
        McpInputRequest.elicitForm({
          message: 'What context should the prompt use?',
          requestedSchema: {
            type: 'object',
            properties: { context: { type: 'string' } },
            required: ['context'],
          },
        }),
      );
    }
    return `Prompt with context: ${context}`;
  }
}
