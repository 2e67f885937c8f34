import type { McpPromptOptions } from './mcp-operation-options.interface';
import { mcpOperation } from './mcp-operation.decorator';

/**
 * Serves the decorated method as an MCP prompt (`prompts/get`). A string return becomes one user
 * text message; an object with `messages` is sent as the prompt result.
 *
 * @example
 * ```ts
 * @McpPrompt({ description: 'Summarise a ticket', arguments: [{ name: 'id', required: true }] })
 * summarise(@McpArgs('id') id: string) { return `Summarise ticket ${id}`; }
 * ```
 * @publicApi
 */
export function McpPrompt(options: McpPromptOptions): MethodDecorator {
  return mcpOperation({ kind: 'prompt', options });
}
