import type { ServerContext } from '@modelcontextprotocol/server';
import type { HttpExchange } from './http-exchange';

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

/**
 * The params an operation call runs with: the request's own (as the HTTP layer parsed them), with
 * input responses keeping their exact number text; the SDK's copy `fallback` otherwise.
 * @internal
 */
export function callParamsOf(
  exchange: HttpExchange,
  sdk: ServerContext,
  fallback: object,
): Record<string, unknown> {
  const own = ownRequestParams(exchange, sdk);
  if (!own) return fallback as Record<string, unknown>;
  return exchange.exactInputResponses === undefined
    ? own
    : { ...own, inputResponses: exchange.exactInputResponses };
}

/** The arguments of a tool or prompt call in `params`, when they are a plain object. @internal */
export function ownArguments(
  params: Readonly<Record<string, unknown>>,
): Record<string, unknown> | undefined {
  const args = params.arguments;
  return args !== null && typeof args === 'object' && !Array.isArray(args)
    ? (args as Record<string, unknown>)
    : undefined;
}
