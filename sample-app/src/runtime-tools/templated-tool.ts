import {
  McpInputRequest,
  McpInputRequiredResult,
  McpRequestStateMode,
  type McpOperationContext,
  type McpToolOptions,
} from '../../../src/index';
import type { McpRuntimeDefinition, McpRuntimeHandler } from '../../../src/entry/runtime';
import { callerName } from '../demo-auth/caller-name';
import type { SampleToolDefinition } from './sample-tool-definition';

const confirmSchema = {
  type: 'object',
  properties: { confirm: { type: 'boolean', title: 'Go ahead?' } },
  required: ['confirm'],
};

/** `reply` with every `{{field}}` replaced by that argument (JSON for anything but a string). */
export function renderReply(reply: string, args: Record<string, unknown>): string {
  return reply.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (_, field: string) => {
    const value = Object.hasOwn(args, field) ? args[field] : undefined;
    if (value === undefined) return '';
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/**
 * What the module registers for an operator's tool: its name, description and input schema (the
 * module validates the arguments against it), `visibleTo` as a visibility predicate on the caller's
 * name (everyone else: an unknown tool), and for `confirm` a declared form and framework-protected
 * state — the contract a flow binds: registering it again with another schema refuses flows begun
 * under the old one.
 */
export function templatedTool(
  definition: SampleToolDefinition,
): McpRuntimeDefinition<McpToolOptions & { name: string }> {
  const allowed = definition.visibleTo && new Set(definition.visibleTo);
  return {
    name: definition.name,
    description: definition.description,
    inputSchema: definition.inputSchema,
    ...(definition.confirm && {
      requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
      mayRequestInput: [{ type: 'elicitation.form' }],
    }),
    ...(allowed && {
      visibleTo: (caller: McpOperationContext) => {
        const name = callerName(caller.http.request);
        return name !== undefined && allowed.has(name);
      },
    }),
  };
}

/** The handler every operator's tool runs: the reply, after a yes when `confirm` asks for one. */
export function templatedHandler(
  definition: SampleToolDefinition,
): McpRuntimeHandler<Record<string, unknown>> {
  return (args, ctx) => {
    const text = renderReply(definition.reply, args);
    if (!definition.confirm) return text;
    const asked = ctx.requestState.framework<{ asked: boolean }>()?.asked === true;
    const answer = asked ? ctx.inputResponses.find('confirm') : undefined;
    if (!answer)
      return McpInputRequiredResult.builder()
        .inputRequest(
          'confirm',
          McpInputRequest.elicitForm({
            message: `Run ${definition.name}?`,
            requestedSchema: confirmSchema,
          }),
        )
        .frameworkState({ asked: true })
        .build();
    const yes =
      answer.kind === 'elicitation' &&
      answer.action === 'accept' &&
      (answer.content as { confirm?: unknown } | undefined)?.confirm === true;
    return yes ? text : 'Cancelled';
  };
}
