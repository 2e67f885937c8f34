import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpHttpRequest } from '../input/mcp-operation-context.interface';

/**
 * What the HTTP layer knows about the exchange an MCP request arrived on: what an extension's
 * method handler and resource reader receive.
 * @publicApi
 */
export interface HttpExchange {
  /** The request as the host framework sees it (Express `Request`, `FastifyRequest`). */
  readonly request: McpHttpRequest;
  /** The underlying Node request. */
  readonly raw: IncomingMessage;
  /** The underlying Node response; the module writes the answer. */
  readonly response: ServerResponse;
  /** The JSON-RPC message of a POST, as parsed (`JSON.parse` semantics). */
  readonly message: unknown;
  /** Its `params.inputResponses` with exact number text (`LosslessNumber`), when present. */
  readonly exactInputResponses: unknown;
}
