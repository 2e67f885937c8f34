import { SetMetadata } from '@nestjs/common';
import type { McpOperationMetadata } from './mcp-operation-options.interface';
import { MCP_OPERATION_METADATA } from '../util/mcp.constants';

/**
 * What every operation decorator applies: its metadata. The library's own pipeline steps
 * (capability gating, argument validation, state protection) are added when the module builds
 * the operation's handler, as the innermost interceptors.
 */
export function mcpOperation(metadata: McpOperationMetadata): MethodDecorator {
  return SetMetadata(MCP_OPERATION_METADATA, metadata);
}
