/** Which kind of MCP operation a method serves. */
export type McpOperationKind = 'tool' | 'prompt' | 'resource';
