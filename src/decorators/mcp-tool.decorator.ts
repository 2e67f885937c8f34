import { applyDecorators, SetMetadata, UseFilters, UseInterceptors } from '@nestjs/common';
import { ProtocolErrorPassthroughFilter } from '../protocol/protocol-error-passthrough.filter';
import { McpCapabilityInterceptor } from '../input/mcp-capability.interceptor';
import { McpRequestStateInterceptor } from '../state/mcp-request-state.interceptor';
import { MCP_OPERATION_METADATA } from '../mcp.constants';
import type { McpOperationMetadata, McpToolOptions } from '../interfaces/mcp-operation-options.interface';

/**
 * Serves the decorated method as an MCP tool. The call runs through the Nest pipeline (guards,
 * interceptors, pipes, filters) with context type `'mcp'`; take the arguments with `@McpArgs()`.
 *
 * A string return becomes a text result; an object with `content` is sent as the tool result;
 * any other value is sent as JSON text (and as `structuredContent` when `outputSchema` is set).
 *
 * @example
 * ```ts
 * @McpTool({ description: 'Adds two numbers' })
 * add(@McpArgs() { a, b }: AddDto) { return String(a + b); }
 * ```
 * @publicApi
 */
export function McpTool(options: McpToolOptions): MethodDecorator {
  const metadata: McpOperationMetadata = { kind: 'tool', options };
  return applyDecorators(
    SetMetadata(MCP_OPERATION_METADATA, metadata),
    // Capability gating wraps state protection: a missing capability is reported before any state is opened.
    UseInterceptors(McpCapabilityInterceptor, McpRequestStateInterceptor),
    UseFilters(ProtocolErrorPassthroughFilter),
  );
}
