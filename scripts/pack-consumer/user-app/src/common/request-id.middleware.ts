import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';

/** `app.use()` middleware: every response carries a request id. */
export function requestId(_req: IncomingMessage, res: ServerResponse, next: () => void): void {
  res.setHeader(REQUEST_ID_HEADER, randomUUID());
  next();
}
