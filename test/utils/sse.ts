import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';

/** One JSON-RPC message as it travels in an SSE `data:` field. */
export interface JsonRpcFrame {
  jsonrpc: '2.0';
  id?: number | string | null;
  method?: string;
  params?: Record<string, unknown> & { _meta?: Record<string, unknown> };
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/**
 * The JSON-RPC messages of a complete SSE text: the `data:` lines of each event, joined and
 * parsed. Comments (`: keepalive`) and events without data are skipped.
 */
export function parseSseMessages(text: string): JsonRpcFrame[] {
  const messages: JsonRpcFrame[] = [];
  for (const event of text.replace(/\r\n?/g, '\n').split('\n\n')) {
    const data = event
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice('data:'.length).replace(/^ /, ''));
    if (data.length > 0) messages.push(JSON.parse(data.join('\n')) as JsonRpcFrame);
  }
  return messages;
}

/**
 * Reads JSON-RPC messages one at a time off an open SSE response body (a `fetch` Response), so a
 * test can wait for the next frame of a stream that never ends by itself.
 */
export class SseReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = '';
  private readonly ready: JsonRpcFrame[] = [];

  constructor(body: ReadableStream<Uint8Array>) {
    this.reader = body.getReader();
  }

  /** The next message; rejects after `timeoutMs` or when the stream ends first. */
  async next(timeoutMs = 2000): Promise<JsonRpcFrame> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no SSE message within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([this.read(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Every message until the server ends the stream. */
  async rest(timeoutMs = 2000): Promise<JsonRpcFrame[]> {
    const messages: JsonRpcFrame[] = [];
    for (;;) {
      try {
        messages.push(await this.next(timeoutMs));
      } catch (error) {
        if (error instanceof StreamEnded) return messages;
        throw error;
      }
    }
  }

  private async read(): Promise<JsonRpcFrame> {
    for (;;) {
      const message = this.ready.shift();
      if (message) return message;
      const chunk = await this.reader.read();
      if (chunk.done) throw new StreamEnded();
      this.buffer += this.decoder.decode(chunk.value, { stream: true });
      let end: number;
      while ((end = this.buffer.indexOf('\n\n')) !== -1) {
        this.ready.push(...parseSseMessages(this.buffer.slice(0, end)));
        this.buffer = this.buffer.slice(end + 2);
      }
    }
  }
}

/** Thrown by {@link SseReader.next} when the server ended the stream. */
export class StreamEnded extends Error {
  constructor() {
    super('the SSE stream ended');
  }
}

/** A POST whose response is read as a stream, on its own connection. */
export interface OpenStream {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The response body; wrap it in an {@link SseReader}. */
  readonly body: ReadableStream<Uint8Array>;
  /** Drops the connection, as a client that goes away does. */
  close(): void;
}

/**
 * POSTs `body` to `url` and resolves once the response headers arrive, leaving the body to be read.
 * Uses its own connection (no agent): Node's `fetch` opens a spare pooled connection when a
 * streamed response is aborted, and a closing server waits for that connection to time out.
 */
export function postForStream(
  url: URL,
  headers: Record<string, string>,
  body: string,
): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers, agent: false }, (res) => {
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: Readable.toWeb(res) as ReadableStream<Uint8Array>,
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
