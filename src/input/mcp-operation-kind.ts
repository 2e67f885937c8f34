/** Which kind of MCP operation a method serves. @internal */
export type McpOperationKind = 'tool' | 'prompt' | 'resource';
