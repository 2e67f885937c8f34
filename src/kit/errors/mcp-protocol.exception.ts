import { ProtocolError } from '@modelcontextprotocol/server';

/**
 * Throw from an operation (or a guard, pipe or interceptor) to answer with a specific JSON-RPC error.
 * The code, message and data are sent to the client as given, so keep them client-safe.
 *
 * @example
 * throw new McpProtocolException(-32602, 'Unknown region', { region });
 * @publicApi
 */
export class McpProtocolException extends ProtocolError {
  constructor(code: number, message: string, data?: unknown) {
    super(code, message, data);
  }
}
