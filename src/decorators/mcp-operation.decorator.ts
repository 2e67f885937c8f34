import { SetMetadata } from '@nestjs/common';
import type { McpOperationMetadata } from './mcp-operation-options.interface';
import { MCP_OPERATION_METADATA } from '../util/mcp.constants';

/**
 * What every operation decorator applies: its metadata. The module's own steps (argument
 * validation, then the capability-gating and state-protection interceptors) are added when it
 * builds the operation's handler, innermost of everything the application applies.
 */
export function mcpOperation(metadata: McpOperationMetadata): MethodDecorator {
  return SetMetadata(MCP_OPERATION_METADATA, metadata);
}
