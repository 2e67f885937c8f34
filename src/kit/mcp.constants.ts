import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/server';

/**
 * Metadata key under which `@McpTool`, `@McpPrompt` and `@McpResource` store an operation
 * definition.
 * @internal
 */
export const MCP_OPERATION_METADATA = 'mcp:operation';

/**
 * The execution-context type reported by `ExecutionContext.getType()` for MCP operations.
 * @internal
 */
export const MCP_CONTEXT_TYPE = 'mcp';

/** The only protocol revision this module serves on its modern wire. @publicApi */
export const MCP_PROTOCOL_VERSION = '2026-07-28';

/** Reserved `_meta` keys of the 2026-07-28 request envelope, as the SDK names them. @internal */
export const MCP_META_KEYS = {
  protocolVersion: PROTOCOL_VERSION_META_KEY,
  clientInfo: CLIENT_INFO_META_KEY,
  clientCapabilities: CLIENT_CAPABILITIES_META_KEY,
  logLevel: LOG_LEVEL_META_KEY,
} as const;

/** Injection token of the endpoint path, normalised (what request state is bound to). @internal */
export const MCP_ENDPOINT = Symbol('McpEndpoint');

/** Metadata key of the `@McpMayRequestInput` declarations of a method. @internal */
export const MCP_INPUT_DECLARATIONS_METADATA = 'mcp:may_request_input';

/** Injection token of the SSE keep-alive interval of streams, in ms (0: none). @internal */
export const MCP_KEEP_ALIVE_MS = Symbol('McpKeepAliveMs');

/**
 * Metadata key under which an extension's decorator marks a method as one of its members
 * (`@McpSkill`): the explorer refuses such a method at startup while that extension is off.
 * @internal
 */
export const MCP_EXTENSION_MARK_METADATA = 'mcp:extension_mark';
