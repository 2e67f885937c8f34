import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@nestjs/common';
import { internalError } from '../../kit/errors/internal-error';
import type { HttpExchange } from '../../pipeline/http-exchange';

const exchanges = new AsyncLocalStorage<HttpExchange>();
const logger = new Logger('McpModule');

/**
 * The module's one AsyncLocalStorage. The official SDK calls our request handlers with its own
 * context (a web `Request`), not the Nest request that carried the message, so the endpoint runs
 * the SDK's handler inside the exchange and each SDK request handler takes it out here, once, and
 * passes it on explicitly. The fast path and task steps never use it.
 * @internal
 */
export const sdkRequestExchange = {
  /** Serves `work` (the SDK's handler) with `exchange` reachable from its request handlers. */
  run<T>(exchange: HttpExchange, work: () => T): T {
    return exchanges.run(exchange, work);
  },
  /** The exchange being served, if any (for the transport, after the SDK answered). */
  peek(): HttpExchange | undefined {
    return exchanges.getStore();
  },
  /** The exchange of the SDK request being handled; a handler reached without one is a bug. */
  current(method: string): HttpExchange {
    const exchange = exchanges.getStore();
    if (!exchange) {
      logger.error(`MCP ${method} was handled outside an HTTP exchange`);
      throw internalError();
    }
    return exchange;
  },
};
