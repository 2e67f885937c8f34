import type { OutgoingHttpHeader, ServerResponse } from 'node:http';

/**
 * What `switchToHttp().getResponse()` returns while an MCP operation runs. The JSON-RPC answer
 * belongs to the module, so an HTTP-minded guard, interceptor or exception filter cannot write
 * it: response headers it sets (rate-limit headers, request ids) reach the client while the
 * headers are still unsent; a status code or body it writes is recorded here and ignored. It
 * speaks enough of the Express and Fastify reply APIs (`status`/`code`, `json`/`send`,
 * `header`/`setHeader`, `getHeader`, `end`) for typical catch-all filters.
 *
 * @publicApi
 */
export class McpHttpResponse {
  /** The status an enhancer tried to set, if any. */
  statusCode = 200;
  /** Express-style per-response locals. */
  readonly locals: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  private replied = false;

  /** @internal */
  constructor(private readonly target: ServerResponse | undefined) {}

  /** Whether an enhancer tried to send an HTTP body or status through this response. */
  get written(): boolean {
    return this.replied;
  }

  get headersSent(): boolean {
    return this.target?.headersSent ?? false;
  }

  /** Fastify's name for {@link headersSent}. */
  get sent(): boolean {
    return this.headersSent;
  }

  /** Itself, for code that writes to a Fastify reply's `raw` Node response. */
  get raw(): this {
    return this;
  }

  status(code: number): this {
    this.statusCode = code;
    this.replied = true;
    return this;
  }

  code(code: number): this {
    return this.status(code);
  }

  json(body?: unknown): this {
    return this.end(body);
  }

  send(body?: unknown): this {
    return this.end(body);
  }

  end(_body?: unknown): this {
    this.replied = true;
    return this;
  }

  writeHead(code: number): this {
    return this.status(code);
  }

  write(_chunk?: unknown): boolean {
    this.replied = true;
    return true;
  }

  type(_contentType: string): this {
    return this;
  }

  setHeader(name: string, value: OutgoingHttpHeader): this {
    if (this.target && !this.target.headersSent) this.target.setHeader(name, value);
    return this;
  }

  header(name: string, value: OutgoingHttpHeader): this {
    return this.setHeader(name, value);
  }

  set(name: string, value: OutgoingHttpHeader): this {
    return this.setHeader(name, value);
  }

  getHeader(name: string): OutgoingHttpHeader | undefined {
    return this.target?.getHeader(name);
  }

  removeHeader(name: string): this {
    if (this.target && !this.target.headersSent) this.target.removeHeader(name);
    return this;
  }
}
