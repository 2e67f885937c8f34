import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders } from 'node:http';

/** An HTTP response as received. */
export interface RawHttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** A request whose body is sent in two steps, the second one only when asked for. */
export interface StalledRequest {
  /** Settles when the server answers (possibly before the whole body was sent). */
  readonly response: Promise<RawHttpResponse>;
  /** Whether the server has answered. */
  answered(): boolean;
  /**
   * Whether the request is over without an answer the client could read: the server cut the
   * connection (reset, or closed it while the body was still being written) before a response
   * arrived, or the request was aborted.
   */
  cut(): boolean;
  /** Sends the body up to byte `end` (exclusive), without ending the request. */
  sendUpTo(end: number): void;
  /** Sends the rest of the body and ends the request. */
  sendRest(): void;
  /** Destroys the connection. */
  abort(): void;
}

/**
 * Sends `method` to `url` on a connection of its own (no keep-alive, so no reuse race with a
 * server closing idle sockets), writing `body.subarray(0, firstBytes)` at once with the full
 * `Content-Length`. The rest waits for {@link StalledRequest.sendUpTo} and
 * {@link StalledRequest.sendRest}.
 */
export function stalledRequest(
  method: string,
  url: URL,
  headers: Record<string, string>,
  body: Buffer,
  firstBytes: number,
): StalledRequest {
  let answered = false;
  let cut = false;
  let sent = Math.min(firstBytes, body.length);
  let request: ClientRequest | undefined;
  const response = new Promise<RawHttpResponse>((done, fail) => {
    request = httpRequest(url, {
      method,
      agent: false,
      headers: { ...headers, 'Content-Length': String(body.length) },
    });
    request.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        answered = true;
        done({
          status: incoming.statusCode ?? 0,
          headers: incoming.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        });
        // An early answer leaves the rest of the body unsent: drop the connection.
        request?.destroy();
      });
      incoming.on('error', (error) => {
        if (answered) return;
        cut = true;
        fail(error);
      });
    });
    request.on('error', (error) => {
      if (answered) return;
      cut = true;
      fail(error);
    });
    if (firstBytes >= body.length) request.end(body);
    else if (firstBytes > 0) request.write(body.subarray(0, firstBytes));
    // Node sends the headers with the first write; a request that sends none sends them now.
    else request.flushHeaders();
  });
  // Aborted or refused requests must not surface as unhandled rejections.
  response.catch(() => undefined);
  return {
    response,
    answered: () => answered,
    cut: () => cut,
    sendUpTo(end) {
      if (answered || !request || request.destroyed || end <= sent) return;
      request.write(body.subarray(sent, Math.min(end, body.length)));
      sent = Math.min(end, body.length);
    },
    sendRest() {
      if (answered || !request || request.destroyed) return;
      request.end(body.subarray(sent));
      sent = body.length;
    },
    abort() {
      request?.destroy();
    },
  };
}

/** POSTs `body` and resolves with the whole response. */
export function httpPost(
  url: URL,
  headers: Record<string, string>,
  body: string | Buffer,
): Promise<RawHttpResponse> {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return stalledRequest('POST', url, headers, bytes, bytes.length).response;
}

/** GETs `url` and resolves with the whole response. */
export function httpGet(url: URL, headers: Record<string, string>): Promise<RawHttpResponse> {
  return stalledRequest('GET', url, headers, Buffer.alloc(0), 0).response;
}
