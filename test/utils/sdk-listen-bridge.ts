import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable, pipeline } from 'node:stream';
import type { ReadableStream as NodeWebReadableStream } from 'node:stream/web';
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import { bodylessWebRequestOf } from '../../src/wire/listen/listen-stream.opener';

/**
 * The reference for the module's own listen streams (test/e2e/wire/listen-differential.e2e-spec.ts): how
 * the module served `subscriptions/listen` before it held streams itself. Serves a parsed message
 * through an SDK handler and pipes the SDK's stream to `res`, resolving once the stream has ended
 * for any reason (client gone, handler closed, error).
 */
export function serveListenStream(
  handler: McpHttpHandler,
  req: IncomingMessage & { auth?: unknown },
  res: ServerResponse,
  parsedBody: unknown,
): Promise<void> {
  const abort = new AbortController();
  const onClose = () => abort.abort();
  res.once('close', onClose);
  if (res.destroyed) abort.abort();
  const request = bodylessWebRequestOf(req, abort.signal);
  const options = {
    parsedBody,
    ...(req.auth === undefined ? {} : { authInfo: req.auth as never }),
  };
  return handler.fetch(request, options).then(
    (response) =>
      new Promise<void>((resolve) => {
        const outgoing: Record<string, string> = {};
        response.headers.forEach((value, name) => (outgoing[name] = value));
        res.writeHead(response.status, outgoing);
        if (response.body === null) {
          res.end();
          resolve();
          return;
        }
        const body = Readable.fromWeb(response.body as NodeWebReadableStream<Uint8Array>);
        pipeline(body, res, () => {
          res.off('close', onClose);
          resolve();
        });
      }),
  );
}
