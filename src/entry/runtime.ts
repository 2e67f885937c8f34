// `nestjs-mcp/runtime`: tools, prompts and resources registered and removed at run time — per
// tenant, from a database — served through the same pipeline as decorated ones
// (docs/runtime-operations.md).
export { McpRuntimeOperations } from '../operations/runtime/mcp-runtime-operations.service';
export type {
  McpRuntimeDefinition,
  McpRuntimeHandler,
} from '../operations/runtime/mcp-runtime-definition.interface';
