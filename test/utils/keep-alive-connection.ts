import { Agent, request } from 'node:http';
import type { RawHttpResponse } from './raw-http';

/** A response on a {@link KeepAliveConnection}, and whether it came on the connection opened earlier. */
export interface KeepAliveResponse extends RawHttpResponse {
  /** Whether the request went on a connection a previous request had opened (not a new one). */
  reused: boolean;
}

/**
 * One HTTP/1.1 connection kept open between requests, as a balancer's pool or a client keeps one:
 * every request goes on it while the server keeps it open; once the server closed it, the next
 * request opens a new one (and {@link KeepAliveResponse.reused} is false).
 */
export class KeepAliveConnection {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1, maxFreeSockets: 1 });

  constructor(private readonly origin: URL) {}

  /** Sends one request and resolves with the whole answer; rejects with the socket's error. */
  send(
    method: string,
    path: string,
    headers: Record<string, string> = {},
    body = '',
  ): Promise<KeepAliveResponse> {
    return new Promise((done, fail) => {
      const outgoing = request(new URL(path, this.origin), {
        method,
        agent: this.agent,
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
      });
      outgoing.once('response', (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.once('error', fail);
        incoming.once('end', () =>
          done({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            text: Buffer.concat(chunks).toString('utf8'),
            reused: outgoing.reusedSocket,
          }),
        );
      });
      outgoing.once('error', fail);
      outgoing.end(body);
    });
  }

  /** Closes the connection. */
  close(): void {
    this.agent.destroy();
  }
}
