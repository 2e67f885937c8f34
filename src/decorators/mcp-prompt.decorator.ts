import { applyDecorators, SetMetadata, UseFilters, UseInterceptors } from '@nestjs/common';
import { ProtocolErrorPassthroughFilter } from '../protocol/protocol-error-passthrough.filter';
import { McpCapabilityInterceptor } from '../input/mcp-capability.interceptor';
import { McpRequestStateInterceptor } from '../state/mcp-request-state.interceptor';
import { MCP_OPERATION_METADATA } from '../mcp.constants';
import type { McpOperationMetadata, McpPromptOptions } from '../interfaces/mcp-operation-options.interface';

/**
 * Serves the decorated method as an MCP prompt (`prompts/get`). A string return becomes one user
 * text message; an object with `messages` is sent as the prompt result.
 *
 * @example
 * ```ts
 * @McpPrompt({ description: 'Summarise a ticket', arguments: [{ name: 'id', required: true }] })
 * summarise(@McpArgs('id') id: string) { return `Summarise ticket ${id}`; }
 * ```
 * @publicApi
 */
export function McpPrompt(options: McpPromptOptions): MethodDecorator {
  const metadata: McpOperationMetadata = { kind: 'prompt', options };
  return applyDecorators(
    SetMetadata(MCP_OPERATION_METADATA, metadata),
    // Capability gating wraps state protection: a missing capability is reported before any state is opened.
    UseInterceptors(McpCapabilityInterceptor, McpRequestStateInterceptor),
    UseFilters(ProtocolErrorPassthroughFilter),
  );
}
