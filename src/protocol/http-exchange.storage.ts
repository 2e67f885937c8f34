import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';

/** What the HTTP layer knows about the exchange an MCP request arrived on. */
export interface HttpExchange {
  readonly request: IncomingMessage;
  /** The request body with exact number tokens (`LosslessNumber`), when it was JSON. */
  readonly losslessBody: unknown;
}

/** Carries the current {@link HttpExchange} from the endpoint into the SDK's request handlers. */
export const httpExchangeStorage = new AsyncLocalStorage<HttpExchange>();
