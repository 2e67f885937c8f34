import type { Logger } from '@nestjs/common';
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  serializeMessage,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/server';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import type { HttpExchange } from '../../pipeline/http-exchange';
import { bodyRefusal } from '../http/body-refusal';
import type { JsonBodyLimits } from '../http/json-body-limits';
import { parseJsonBody } from '../http/lossless-json-body';
import type { McpStdioCaller } from './mcp-stdio-options.interface';
import { BoundedLineReader } from './bounded-line-reader';
import { StdioAnswers, type StdioAnswer } from './stdio-answers';
import { stdioExchange } from './stdio-exchange';

type Id = string | number;

/** The key of a JSON-RPC id: `1` and `"1"` are different requests. */
const keyOf = (id: Id): string => JSON.stringify(id);

/**
 * The MCP stdio binding on a pair of streams: newline-delimited JSON-RPC, read within the module's
 * body bounds and parsed as the HTTP endpoint parses a body (bounded, lossless, input responses
 * with their exact number text) — a line over `http.body.maxBytes` is answered `-32600 Request
 * body too large` (the rest of it skipped as it arrives) and the next line is read as usual; a
 * line that does not parse gets the documented parse error. Each request's exchange is kept by id
 * until its answer is written ({@link exchangeOf}), and the answers to this connection's own
 * server-to-client requests are taken here, as the client wrote them ({@link request}). At the end
 * of the input it stops reading; {@link drain} waits until every request in flight has been
 * answered, or for the grace period.
 * @internal
 */
export class StdioLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly reader: BoundedLineReader;
  private readonly exchanges = new Map<string, HttpExchange>();
  /** Open `subscriptions/listen` requests: answered when the connection ends, so never waited for. */
  private readonly listens = new Set<string>();
  private readonly answers = new StdioAnswers();
  private reading = false;
  private closed = false;
  private drained: (() => void) | undefined;
  private readonly ended: Promise<void>;
  private endInput!: () => void;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    private readonly limits: JsonBodyLimits,
    private readonly endpoint: string,
    private readonly caller: McpStdioCaller | undefined,
    private readonly logger: Logger,
  ) {
    this.ended = new Promise((done) => (this.endInput = done));
    this.reader = new BoundedLineReader(
      limits.maxBytes,
      (line) => this.line(line),
      () =>
        this.refuse(null, McpErrorCode.InvalidRequest, 'Request body too large', {
          maxBytes: limits.maxBytes,
        }),
    );
  }

  /** Resolves when the input ends (end of file, or the stream closed). */
  get inputEnded(): Promise<void> {
    return this.ended;
  }

  /** The exchange of the request `id` being served; `undefined` once it is answered. */
  exchangeOf(id: Id): HttpExchange | undefined {
    return this.exchanges.get(keyOf(id));
  }

  /** How many requests of the client are being served (open listen subscriptions aside). */
  get inFlight(): number {
    return this.exchanges.size - this.listens.size;
  }

  async start(): Promise<void> {
    this.reading = true;
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('close', this.onEnd);
    this.input.on('error', this.onInputError);
  }

  /**
   * Sends a server-to-client request and waits for the client's answer, as JSON text with the
   * numbers the client wrote; bounded by `timeoutMs` and `signal`.
   */
  request(
    method: string,
    params: unknown,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<StdioAnswer> {
    if (this.closed) return Promise.resolve({ kind: 'unanswered', reason: 'aborted' });
    const id = this.answers.newId();
    return this.answers.wait(id, timeoutMs, signal, () =>
      this.send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage),
    );
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (
      (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) &&
      message.id !== undefined
    )
      this.answered(message.id);
    if (this.closed) return;
    await this.write(serializeMessage(message));
  }

  /**
   * Stops reading, and resolves once every request in flight is answered — or after `graceMs`
   * (unanswered ones are then aborted as the server closes).
   */
  async drain(graceMs: number): Promise<void> {
    this.stopReading();
    if (this.inFlight > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((done) => (this.drained = done)),
        new Promise<void>((done) => (timer = setTimeout(done, graceMs))),
      ]);
      clearTimeout(timer);
      if (this.inFlight > 0)
        this.logger.warn(
          `${this.inFlight} MCP request(s) still in flight after ${graceMs} ms; closing anyway`,
        );
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopReading();
    this.answers.abortAll();
    this.onclose?.();
  }

  private stopReading(): void {
    if (!this.reading) return;
    this.reading = false;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('close', this.onEnd);
    this.input.off('error', this.onInputError);
    this.input.pause();
    this.reader.clear();
    // No answer to a server-to-client request can come any more.
    this.answers.abortAll();
    this.endInput();
  }

  private answered(id: Id): void {
    const key = keyOf(id);
    if (!this.exchanges.delete(key)) return;
    this.listens.delete(key);
    if (this.inFlight === 0) this.drained?.();
  }

  private write(text: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = (error?: Error | null) => (error ? reject(error) : resolve());
      this.output.write(text, done);
    });
  }

  private readonly onData = (data: Buffer | string): void => {
    this.reader.push(data);
  };

  private readonly onEnd = (): void => {
    this.stopReading();
  };

  private readonly onInputError = (error: Error): void => {
    this.onerror?.(error);
  };

  /** One line of input: a message for the server, an answer to this connection's request, or a refusal. */
  private line(text: string): void {
    const trimmed = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (trimmed.trim() === '') return;
    const parsed = parseJsonBody(trimmed, this.limits);
    if (!parsed.ok) {
      const refusal = bodyRefusal(parsed.reason, this.limits);
      return this.refuse(null, refusal.code, refusal.message, refusal.data);
    }
    const message = parsed.plain as { id?: unknown; method?: unknown } | null;
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      if (this.answers.answer(message.id, trimmed)) return;
      return this.onmessage?.(message);
    }
    if (isJSONRPCRequest(message)) {
      const key = keyOf(message.id);
      if (this.exchanges.has(key))
        return this.refuse(
          message.id,
          McpErrorCode.InvalidRequest,
          'Invalid Request: a request with this id is in flight',
        );
      this.exchanges.set(
        key,
        stdioExchange(this.endpoint, this.caller, message, parsed.exactInputResponses),
      );
      if (message.method === 'subscriptions/listen') this.listens.add(key);
      return this.onmessage?.(message);
    }
    if (isJSONRPCNotification(message)) {
      if (message.method === 'notifications/cancelled') {
        const cancelled = (message.params as { requestId?: Id } | undefined)?.requestId;
        // A cancelled request gets no answer: it is not in flight any more.
        if (cancelled !== undefined) setImmediate(() => this.answered(cancelled));
      }
      return this.onmessage?.(message);
    }
    const id = message !== null && typeof message === 'object' ? message.id : undefined;
    this.refuse(
      typeof id === 'string' || typeof id === 'number' ? id : null,
      McpErrorCode.InvalidRequest,
      'Invalid Request',
    );
  }

  private refuse(
    id: Id | null,
    code: number,
    message: string,
    data?: Record<string, unknown>,
  ): void {
    if (this.closed) return;
    const error = { code, message, ...(data !== undefined && { data }) };
    void this.write(`${JSON.stringify({ jsonrpc: '2.0', id, error })}\n`).catch((failure: Error) =>
      this.onerror?.(failure),
    );
  }
}
