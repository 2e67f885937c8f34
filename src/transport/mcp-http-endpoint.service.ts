import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { McpErrorCode } from '../errors/mcp-error-codes';
import { SERVER_OPTIONS, type ServerOptions } from '../protocol/server.options';
import { TRANSPORT_OPTIONS, type TransportOptions } from './transport.options';
import { LISTEN_LIMITS, type ListenLimits } from './listen-limits';
import { sdkRequestExchange } from '../protocol/sdk-request-exchange';
import { SdkServerFactory } from '../protocol/sdk-server.factory';
import { HostOriginPolicy } from './host-origin-policy';
import { writeJsonRpcHttpError } from '../util/json-rpc-http-error';
import { BodyByteBudget, type BodyReservation } from './body-byte-budget';
import { bodyRefusal } from './body-refusal';
import { McpFastPath } from './fast-path';
import { McpDispatcher } from '../protocol/mcp-dispatcher.service';
import { scanJsonStructure } from './json-structure.scanner';
import { parseJsonBody } from './lossless-json-body';
import { malformedParamsField } from './request-params.validator';
import {
  endpointMounting,
  type EndpointMounting,
  type MountableEndpoint,
} from './http-adapter-mount';
import type { McpHttpRequest } from '../interfaces/mcp-request-context.interface';
import { readRequestBody } from './request-body.reader';
import { ListenStreamLimiter, listenCallerKey } from './listen-stream.limiter';
import { serveListenStream } from './listen-stream.bridge';
import { McpOperationRegistry } from '../discovery/mcp-operation.registry';
import { TaskListenStreams } from '../tasks/streams/task-listen-streams';
import {
  paramHeaderProblem,
  scanParamHeaders,
  type ParamHeaderDeclaration,
} from './param-header.validator';

/** The first bytes of every body, which the shared budget never refuses. */
const SMALL_BODY_BYTES = 65_536;

type NodeHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  parsedBody?: unknown,
) => Promise<void>;

/**
 * The MCP HTTP endpoint: DNS-rebinding protection, bounded lossless body parsing, then the SDK's
 * `createMcpHandler`. It mounts itself on the Express or Fastify instance in two steps: the raw
 * body is taken ahead of Nest's body parsers, and the request is served after the app's own
 * middleware, like any route.
 */
@Injectable()
export class McpHttpEndpoint
  implements MountableEndpoint, OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger('McpModule');
  private readonly policy: HostOriginPolicy;
  /** The SDK handler; its `notify` publishes list-changed events to open subscriptions. */
  readonly sdkHandler: McpHttpHandler;
  private readonly nodeHandler: NodeHandler;
  /**
   * A second SDK handler on the same event bus, serving only `subscriptions/listen`: its streams
   * never end by themselves, so it is closed before Nest closes the HTTP server (which waits for
   * open responses), while ordinary calls still in flight are left to finish.
   */
  private readonly listenSdkHandler: McpHttpHandler;
  /** Counts listen streams, in total and per caller, and refuses those over `options.listen`. */
  readonly listenLimiter: ListenStreamLimiter;
  private readonly paramHeaders = new Map<string, readonly ParamHeaderDeclaration[]>();
  /** Bodies read by the early step, until the request is served. */
  private readonly bodies = new WeakMap<IncomingMessage, string>();
  /** Serves the hot methods without the SDK (`fastPath` option). */
  private readonly fastPath: McpFastPath | undefined;
  /** Memory large bodies hold until their response ends. */
  private readonly bodyBudget: BodyByteBudget;
  private readonly reservations = new WeakMap<IncomingMessage, BodyReservation>();
  private mounting: EndpointMounting | undefined;

  constructor(
    @Inject(TRANSPORT_OPTIONS) private readonly options: TransportOptions,
    @Inject(LISTEN_LIMITS) listen: ListenLimits,
    @Inject(SERVER_OPTIONS) server: ServerOptions,
    serverFactory: SdkServerFactory,
    adapterHost: HttpAdapterHost,
    private readonly registry: McpOperationRegistry,
    dispatcher: McpDispatcher,
    private readonly taskStreams: TaskListenStreams,
  ) {
    this.fastPath = options.fastPath ? new McpFastPath(server, dispatcher) : undefined;
    this.policy = new HostOriginPolicy(options.allowedHosts, options.allowedOrigins);
    this.bodyBudget = new BodyByteBudget(options.body.maxInFlightBytes, SMALL_BODY_BYTES);
    const handlerOptions = {
      keepAliveMs: options.keepAliveMs,
      maxRequestBodySize: options.body.maxBytes,
      onerror: (error: Error) => this.logger.debug(`MCP request rejected: ${error.message}`),
    };
    this.sdkHandler = createMcpHandler(() => serverFactory.create(), handlerOptions);
    this.listenLimiter = new ListenStreamLimiter(listen);
    this.listenSdkHandler = createMcpHandler(() => serverFactory.create(), {
      ...handlerOptions,
      bus: this.sdkHandler.bus,
      // The SDK's own cap stays as a backstop; ours answers first, before a stream opens.
      maxSubscriptions: listen.maxStreams,
    });
    this.nodeHandler = toNodeHandler(this.sdkHandler) as NodeHandler;
    adapterHost.init$.subscribe(() => {
      if (!adapterHost.httpAdapter) return;
      this.mounting = endpointMounting(adapterHost.httpAdapter, options.endpoint, this);
      this.mounting.early();
    });
  }

  /** Nest calls this after registering the app's middleware and routes, before its 404 handler. */
  onModuleInit(): void {
    this.mounting?.late();
  }

  async admit(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    try {
      return await this.admitOrAnswer(req, res);
    } catch (error) {
      this.fail(res, error);
      return false;
    }
  }

  async handle(request: McpHttpRequest, req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      await this.serve(request, req, res);
    } catch (error) {
      this.fail(res, error);
    }
  }

  private fail(res: ServerResponse, error: unknown): void {
    this.logger.error('MCP endpoint failure', error instanceof Error ? error.stack : String(error));
    if (!res.headersSent)
      writeJsonRpcHttpError(res, 500, McpErrorCode.InternalError, 'Internal error');
  }

  /** Host/origin policy, then the bounded raw body of a POST; answers and resolves false on refusal. */
  private async admitOrAnswer(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    if (this.options.dnsRebindingProtection) {
      const refusal = this.policy.refusal(req);
      if (refusal) {
        req.resume();
        writeJsonRpcHttpError(res, 403, McpErrorCode.InvalidRequest, `Forbidden: ${refusal}`);
        return false;
      }
    }
    if (req.method !== 'POST') return true;
    const limits = this.options.body;
    const reservation = this.bodyBudget.open();
    this.reservations.set(req, reservation);
    res.once('close', reservation.release);
    const body = await readRequestBody(req, limits.maxBytes, limits.timeoutMs, reservation);
    if (!body.ok) {
      if (body.reason === 'aborted') {
        res.destroy();
        return false;
      }
      if (body.reason === 'over_budget') {
        // The client may still be sending: keep reading (and discarding) so it gets the answer
        // instead of a reset, but no longer than a body may take.
        const cutOff = setTimeout(() => req.socket.destroy(), limits.timeoutMs);
        req.once('end', () => clearTimeout(cutOff));
        req.socket.once('close', () => clearTimeout(cutOff));
        res.setHeader('Retry-After', '1');
        writeJsonRpcHttpError(
          res,
          503,
          McpErrorCode.ServerBusy,
          'Server busy: too many large request bodies in flight',
          null,
          { maxInFlightBytes: limits.maxInFlightBytes },
        );
      } else if (body.reason === 'timeout') {
        res.setHeader('Connection', 'close');
        writeJsonRpcHttpError(
          res,
          408,
          McpErrorCode.InvalidRequest,
          'Request body timed out',
          null,
          {
            timeoutMs: limits.timeoutMs,
          },
        );
      } else {
        res.setHeader('Connection', 'close');
        writeJsonRpcHttpError(
          res,
          413,
          McpErrorCode.InvalidRequest,
          'Request body too large',
          null,
          {
            maxBytes: limits.maxBytes,
          },
        );
      }
      return false;
    }
    this.bodies.set(req, body.text);
    return true;
  }

  private async serve(
    request: McpHttpRequest,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    if (!this.bodies.has(req) && !(await this.admitOrAnswer(req, res))) return;
    const text = this.bodies.get(req);
    this.bodies.delete(req);
    if (req.method !== 'POST' || text === undefined) {
      return sdkRequestExchange.run(
        { request, raw: req, response: res, message: undefined, exactInputResponses: undefined },
        () => this.nodeHandler(req, res),
      );
    }
    const parsed = parseJsonBody(text, this.options.body);
    if (!parsed.ok) {
      const refusal = bodyRefusal(parsed.reason, this.options.body);
      const id = parsed.reason === 'number_out_of_bounds' ? this.idDespiteNumbers(text) : null;
      if (refusal.status === 413) res.setHeader('Connection', 'close');
      return writeJsonRpcHttpError(
        res,
        refusal.status,
        refusal.code,
        refusal.message,
        id,
        refusal.data,
      );
    }
    const message = parsed.plain as { id?: unknown; method?: unknown; params?: unknown } | null;
    const headerProblem = this.paramHeaderProblem(req, message);
    if (headerProblem) {
      return writeJsonRpcHttpError(
        res,
        400,
        McpErrorCode.HeaderMismatch,
        `Header mismatch: ${headerProblem}`,
        message?.id,
      );
    }
    const malformed = malformedParamsField(message?.method, message?.params);
    if (malformed) {
      return writeJsonRpcHttpError(
        res,
        200,
        McpErrorCode.InvalidParams,
        'Invalid params',
        message?.id,
        {
          field: malformed,
        },
      );
    }
    if (message?.method === 'subscriptions/listen') {
      return this.serveListen(request, req, res, parsed.plain);
    }
    // Guards that read the body see the JSON-RPC message, as after Nest's own JSON parser.
    (request as { body?: unknown }).body = parsed.plain;
    const exchange = {
      request,
      raw: req,
      response: res,
      message: parsed.plain,
      exactInputResponses: parsed.exactInputResponses,
    };
    const fast = this.fastPath?.accepts(req, parsed.plain);
    if (fast && this.fastPath) return this.fastPath.serve(fast, exchange);
    await sdkRequestExchange.run(exchange, () => this.nodeHandler(req, res, parsed.plain));
  }

  /** The id of a message refused for a number, read once the other bounds are known to hold. */
  private idDespiteNumbers(text: string): unknown {
    const limits = { ...this.options.body, maxNumberLength: Infinity, maxExponent: Infinity };
    if (scanJsonStructure(text, limits)) return null;
    try {
      return (JSON.parse(text) as { id?: unknown } | null)?.id ?? null;
    } catch {
      return null;
    }
  }

  /**
   * A `subscriptions/listen` request: refused over the listen limits, else served by the listen
   * handler while holding a stream slot, released once when the stream ends (client gone,
   * application shutdown, or an error answered instead of a stream). No guard or operation runs
   * for it, so the message is not kept on the request, the exchange or a suspended frame.
   */
  private serveListen(
    request: McpHttpRequest,
    req: IncomingMessage,
    res: ServerResponse,
    message: unknown,
  ): Promise<void> | void {
    // A held stream keeps no body, so it holds none of the body budget either.
    this.reservations.get(req)?.release();
    const filterRefusal = this.listenLimiter.filterRefusal(message);
    const admission = filterRefusal
      ? { admitted: false as const, refusal: filterRefusal }
      : this.listenLimiter.acquire(listenCallerKey(request, req));
    if (!admission.admitted) {
      const { status, code, message: text, data } = admission.refusal;
      this.logger.debug(`subscriptions/listen refused: ${data.limit} (${data.max})`);
      const id = (message as { id?: unknown }).id;
      return writeJsonRpcHttpError(res, status, code, text, id, data);
    }
    try {
      const stream = this.taskStreams.follows(message)
        ? this.taskStreams.serve(request, req, res, message)
        : serveListenStream(this.listenSdkHandler, req, res, message);
      return stream.finally(admission.release);
    } catch (error) {
      admission.release();
      throw error;
    }
  }

  /** SEP-2243: `Mcp-Param-*` headers must mirror the arguments a tool marks with `x-mcp-header`. */
  private paramHeaderProblem(req: IncomingMessage, body: unknown): string | undefined {
    if (req.headers['mcp-protocol-version'] === undefined) return undefined;
    const message = body as {
      method?: unknown;
      params?: { name?: unknown; arguments?: unknown };
    } | null;
    if (message?.method !== 'tools/call' || typeof message.params?.name !== 'string')
      return undefined;
    const name = message.params.name;
    let declarations = this.paramHeaders.get(name);
    if (!declarations) {
      const tool = this.registry.findTool(name);
      if (!tool) return undefined;
      declarations = scanParamHeaders(tool.listing.inputSchema);
      this.paramHeaders.set(name, declarations);
    }
    return declarations.length > 0
      ? paramHeaderProblem(declarations, message.params.arguments, req.headers)
      : undefined;
  }

  /** Ends open `subscriptions/listen` streams, each with its final result. */
  async beforeApplicationShutdown(): Promise<void> {
    this.taskStreams.closeAll();
    await this.listenSdkHandler.close();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.sdkHandler.close();
  }
}
