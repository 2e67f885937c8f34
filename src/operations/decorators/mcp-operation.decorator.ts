import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common';
import type { McpOperationMetadata } from './mcp-operation-options.interface';
import { MCP_OPERATION_METADATA } from '../../kit/mcp.constants';
import { OPERATION_SCOPES_GUARD } from '../../pipeline/operation-scopes.guard';

/**
 * What every operation decorator applies: its metadata, and for an operation with `scopes` the
 * scope check as a method guard (after the global and class guards that authenticate the caller).
 * The module's own steps (argument validation, then the capability-gating and state-protection
 * interceptors) are added when it builds the operation's handler, innermost of everything the
 * application applies.
 * @internal
 */
export function mcpOperation(metadata: McpOperationMetadata): MethodDecorator {
  const set = SetMetadata(MCP_OPERATION_METADATA, metadata);
  return metadata.options.scopes === undefined
    ? set
    : applyDecorators(set, UseGuards(OPERATION_SCOPES_GUARD));
}
