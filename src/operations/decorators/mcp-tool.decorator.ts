import type { McpToolOptions } from './mcp-operation-options.interface';
import { mcpOperation } from './mcp-operation.decorator';

/**
 * Serves the decorated method as an MCP tool. The call runs through the Nest pipeline (guards,
 * interceptors, pipes, filters) with context type `'mcp'`; take the arguments with `@McpArgs()`.
 *
 * A string return becomes a text result; an object with `content` is sent as the tool result;
 * any other value is sent as JSON text (and as `structuredContent` when `outputSchema` is set).
 *
 * @example
 * ```ts
 * @McpTool({ description: 'Adds two numbers' })
 * add(@McpArgs() { a, b }: AddDto) { return String(a + b); }
 * ```
 * @publicApi
 */
export function McpTool(options: McpToolOptions): MethodDecorator {
  return mcpOperation({ kind: 'tool', options });
}
