import type { ServerContext } from '@modelcontextprotocol/server';
import type { HttpExchange } from './http-exchange.storage';

/**
 * A request's params as the HTTP layer parsed them (`__proto__` and other keys stay plain data),
 * or `undefined` when the exchange's message is not this request (use the SDK's copy then).
 * @internal
 */
export function ownRequestParams(
  exchange: HttpExchange,
  sdk: ServerContext,
): Record<string, unknown> | undefined {
  const message = exchange.message as { id?: unknown; params?: unknown } | null | undefined;
  const own = message?.params;
  return message?.id === sdk.mcpReq.id && own !== null && typeof own === 'object'
    ? (own as Record<string, unknown>)
    : undefined;
}
