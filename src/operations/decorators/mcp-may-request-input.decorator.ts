import { MCP_INPUT_DECLARATIONS_METADATA } from '../../kit/mcp.constants';
import type { McpInputDeclarationSpec } from '../../input/mcp-input-declaration';

/**
 * Declares that an MCP operation may ask the client for input of this type. Repeatable; the same
 * declarations can also be given as `mayRequestInput` in the operation decorator's options.
 *
 * `REQUIRED` capabilities are checked before the handler runs on every round; `CONDITIONAL` ones
 * (the default) only when the handler emits that request. Emitting an undeclared request is a
 * server bug answered with -32603.
 *
 * @example
 * ```ts
 * @McpTool({ description: 'Deletes a file after confirmation' })
 * @McpMayRequestInput({ type: 'elicitation.form' })
 * remove(@McpArgs() args: RemoveDto, @McpContext() ctx: McpContext) { ... }
 * ```
 * @publicApi
 */
export function McpMayRequestInput(spec: McpInputDeclarationSpec): MethodDecorator {
  return (_target, _key, descriptor) => {
    const method = descriptor.value as object;
    const existing = (Reflect.getMetadata(MCP_INPUT_DECLARATIONS_METADATA, method) ??
      []) as McpInputDeclarationSpec[];
    Reflect.defineMetadata(MCP_INPUT_DECLARATIONS_METADATA, [...existing, spec], method);
    return descriptor;
  };
}
