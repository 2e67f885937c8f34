/** Metadata key under which `@McpTool`, `@McpPrompt` and `@McpResource` store an operation definition. */
export const MCP_OPERATION_METADATA = 'mcp:operation';

/** The execution-context type reported by `ExecutionContext.getType()` for MCP operations. */
export const MCP_CONTEXT_TYPE = 'mcp';

/** The only protocol revision this module serves on its modern wire. */
export const MCP_PROTOCOL_VERSION = '2026-07-28';

/** Reserved `_meta` keys of the 2026-07-28 request envelope. */
export const MCP_META_KEYS = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  logLevel: 'io.modelcontextprotocol/logLevel',
} as const;

/** Metadata key of the `@McpMayRequestInput` declarations of a method. */
export const MCP_INPUT_DECLARATIONS_METADATA = 'mcp:may_request_input';
