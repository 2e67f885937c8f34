import type { McpResourceOptions } from './mcp-operation-options.interface';
import { mcpOperation } from './mcp-operation.decorator';

/**
 * Serves the decorated method as an MCP resource (`resources/read`), at a fixed `uri` or for every
 * URI matching `uriTemplate` (the template variables arrive through `@McpArgs()`).
 *
 * A string return becomes one text content; a `Uint8Array` one base64 blob; an object with
 * `contents` is sent as the read result.
 *
 * @example
 * ```ts
 * @McpResource({ uriTemplate: 'orders://{id}', mimeType: 'application/json' })
 * order(@McpArgs('id') id: string) { return JSON.stringify(this.orders.get(id)); }
 * ```
 * @publicApi
 */
export function McpResource(options: McpResourceOptions): MethodDecorator {
  return mcpOperation({ kind: 'resource', options });
}
