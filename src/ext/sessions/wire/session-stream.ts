import { endWithPieces, jsonPieces } from '../../../kit/encoded-json';
import type { ServerResponse } from 'node:http';
import { withinBacklog } from '../../../extension-api';

/** SSE headers of every stream, as the SDK's streamable HTTP transport sends them. */
const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/** How long a client waits before resuming a lost stream (the `retry` of the priming event). */
const RETRY_MS = 500;

/** Options of a {@link SessionStream}. @internal */
export interface SessionStreamOptions {
  readonly sessionId: string;
  /** The session's protocol version: priming events (empty data) need 2025-11-25 or later. */
  readonly protocolVersion: string;
  /** Prefix of the stream's event ids, or `undefined` for none (not resumable). */
  readonly eventPrefix: string | undefined;
  /** SSE comment interval in ms; 0 for none. */
  readonly keepAliveMs: number;
}

/**
 * The response of one request of a 2025-era session: a single JSON body when nothing is sent
 * before the answer, else an SSE stream (the streamable HTTP transport of 2025) that opens with a
 * priming event and numbers its events, so a client whose connection drops can ask what became
 * of its request. `signal` aborts when the client goes away before the answer — or stops reading:
 * no stream holds more than its backlog bound unsent (`MAX_STREAM_BACKLOG_BYTES`).
 * @internal
 */
export class SessionStream {
  private readonly closed = new AbortController();
  private streaming = false;
  private ended = false;
  private sequence = 0;
  /** Bytes of the last message written: not a backlog while it is still on its way. */
  private inFlightBytes = 0;
  private keepAlive: NodeJS.Timeout | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly options: SessionStreamOptions,
  ) {
    res.once('close', () => {
      this.stopKeepAlive();
      if (!this.ended) this.closed.abort();
    });
  }

  /** Aborts when the client went away before the stream ended. */
  get signal(): AbortSignal {
    return this.closed.signal;
  }

  /** Whether the stream is open for more messages. */
  get open(): boolean {
    return !this.ended && !this.closed.signal.aborted;
  }

  /** Opens the stream as SSE now (a `GET` stream, or a call about to send something). */
  start(): void {
    if (this.streaming || !this.open) return;
    this.streaming = true;
    this.res.writeHead(200, { ...SSE_HEADERS, 'Mcp-Session-Id': this.options.sessionId });
    if (this.options.eventPrefix !== undefined && this.options.protocolVersion >= '2025-11-25')
      this.res.write(`id: ${this.nextId()}\nretry: ${RETRY_MS}\ndata: \n\n`);
    const every = this.options.keepAliveMs;
    if (every > 0) {
      this.keepAlive = setInterval(() => this.write(': keepalive\n\n'), every);
      this.keepAlive.unref();
    }
  }

  /**
   * Sends a message ahead of the answer (a notification, a server-to-client request); `false` when
   * the stream is over. A client that stopped reading is cut here, as a held stream is, once more
   * than the backlog bound waits unsent beyond the last message: the request is then as one whose
   * client went away.
   */
  send(message: unknown): boolean {
    if (!this.open) return false;
    this.start();
    const frame = this.frameOf(JSON.stringify(message));
    if (!this.write(frame)) return false;
    this.inFlightBytes = Buffer.byteLength(frame);
    return true;
  }

  /** The response the stream writes to (a fan-out writes a held `GET` stream's frames to it). */
  get response(): ServerResponse {
    return this.res;
  }

  /** The SSE event of a message given as JSON, with the stream's next event id. */
  frameOf(json: string): string {
    const id = this.options.eventPrefix === undefined ? '' : `id: ${this.nextId()}\n`;
    return `event: message\n${id}data: ${json}\n\n`;
  }

  /**
   * Sends the answer and ends the response: as JSON with `status` and `headers` (a refusal's
   * challenge), or — once the stream is open — as its last event (its status line went already).
   */
  answer(message: unknown, status = 200, headers: Record<string, string> = {}): void {
    if (!this.open) return;
    if (this.streaming) {
      this.send(message);
      return this.end();
    }
    this.ended = true;
    const { pieces, byteLength } = jsonPieces(message);
    this.res.writeHead(status, {
      ...headers,
      'Content-Type': 'application/json',
      'Content-Length': byteLength,
      'Mcp-Session-Id': this.options.sessionId,
    });
    endWithPieces(this.res, pieces);
  }

  /** Ends the response (`202` with no body when nothing was sent). */
  end(status = 202): void {
    if (this.ended) return;
    this.ended = true;
    this.stopKeepAlive();
    if (this.res.writableEnded || this.closed.signal.aborted) return;
    if (!this.streaming) this.res.writeHead(status, { 'Mcp-Session-Id': this.options.sessionId });
    this.res.end();
  }

  /**
   * Writes `text` unless more than the backlog bound waits unsent beyond the last message: then the
   * client stopped reading (or reads far slower than the call sends), and the stream is cut.
   */
  private write(text: string): boolean {
    if (!withinBacklog(this.res, this.inFlightBytes)) return false;
    this.res.write(text);
    return true;
  }

  private nextId(): string {
    return `${this.options.eventPrefix}.${this.sequence++}`;
  }

  private stopKeepAlive(): void {
    if (this.keepAlive !== undefined) clearInterval(this.keepAlive);
    this.keepAlive = undefined;
  }
}
