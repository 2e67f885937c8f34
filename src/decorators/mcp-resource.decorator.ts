import { applyDecorators, SetMetadata, UseFilters, UseInterceptors } from '@nestjs/common';
import { ProtocolErrorPassthroughFilter } from '../protocol/protocol-error-passthrough.filter';
import { McpCapabilityInterceptor } from '../input/mcp-capability.interceptor';
import { McpRequestStateInterceptor } from '../state/mcp-request-state.interceptor';
import { MCP_OPERATION_METADATA } from '../mcp.constants';
import type { McpOperationMetadata, McpResourceOptions } from '../interfaces/mcp-operation-options.interface';

/**
 * Serves the decorated method as an MCP resource (`resources/read`), at a fixed `uri` or for every
 * URI matching `uriTemplate` (the template variables arrive through `@McpArgs()`).
 *
 * A string return becomes one text content; a `Uint8Array` one base64 blob; an object with
 * `contents` is sent as the read result.
 *
 * @example
 * ```ts
 * @McpResource({ uriTemplate: 'orders://{id}', mimeType: 'application/json' })
 * order(@McpArgs('id') id: string) { return JSON.stringify(this.orders.get(id)); }
 * ```
 * @publicApi
 */
export function McpResource(options: McpResourceOptions): MethodDecorator {
  const metadata: McpOperationMetadata = { kind: 'resource', options };
  return applyDecorators(
    SetMetadata(MCP_OPERATION_METADATA, metadata),
    // Capability gating wraps state protection: a missing capability is reported before any state is opened.
    UseInterceptors(McpCapabilityInterceptor, McpRequestStateInterceptor),
    UseFilters(ProtocolErrorPassthroughFilter),
  );
}
