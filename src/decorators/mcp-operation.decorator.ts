import { applyDecorators, SetMetadata, UseFilters, UseInterceptors } from '@nestjs/common';
import { McpCapabilityInterceptor } from '../input/mcp-capability.interceptor';
import type { McpOperationMetadata } from '../interfaces/mcp-operation-options.interface';
import { MCP_OPERATION_METADATA } from '../mcp.constants';
import { ProtocolErrorPassthroughFilter } from '../protocol/protocol-error-passthrough.filter';
import { McpRequestStateInterceptor } from '../state/mcp-request-state.interceptor';

/** What every operation decorator applies: its metadata, the input and state interceptors, the protocol-error filter. */
export function mcpOperation(metadata: McpOperationMetadata): MethodDecorator {
  return applyDecorators(
    SetMetadata(MCP_OPERATION_METADATA, metadata),
    // Capability gating wraps state protection: a missing capability is reported before any state is opened.
    UseInterceptors(McpCapabilityInterceptor, McpRequestStateInterceptor),
    UseFilters(ProtocolErrorPassthroughFilter),
  );
}
