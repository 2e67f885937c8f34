import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { McpErrorCode } from '../errors/mcp-error-codes';
import type { ResolvedMcpOptions } from '../mcp-options.resolver';
import { MCP_RESOLVED_OPTIONS } from '../mcp-resolved-options.token';
import { httpExchangeStorage } from '../protocol/http-exchange.storage';
import { McpServerFactory } from '../protocol/mcp-server.factory';
import { HostOriginPolicy } from './host-origin-policy';
import { writeJsonRpcHttpError } from './json-rpc-http-error';
import { parseJsonBody } from './lossless-json-body';
import { mountOnHttpAdapter } from './http-adapter-mount';
import { readRequestBody } from './request-body.reader';
import { McpOperationRegistry } from '../discovery/mcp-operation.registry';
import {
  paramHeaderProblem,
  scanParamHeaders,
  type ParamHeaderDeclaration,
} from './param-header.validator';

type NodeHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  parsedBody?: unknown,
) => Promise<void>;

/**
 * The MCP HTTP endpoint: DNS-rebinding protection, bounded lossless body parsing, then the SDK's
 * `createMcpHandler`. It mounts itself on the Express or Fastify instance as soon as Nest has an
 * HTTP adapter, ahead of Nest's own body parsers.
 */
@Injectable()
export class McpHttpEndpoint implements BeforeApplicationShutdown, OnApplicationShutdown {
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
  private readonly listenNodeHandler: NodeHandler;
  private readonly paramHeaders = new Map<string, readonly ParamHeaderDeclaration[]>();

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    serverFactory: McpServerFactory,
    adapterHost: HttpAdapterHost,
    private readonly registry: McpOperationRegistry,
  ) {
    this.policy = new HostOriginPolicy(options.allowedHosts, options.allowedOrigins);
    const handlerOptions = {
      keepAliveMs: options.keepAliveMs,
      maxRequestBodySize: options.body.maxBytes,
      onerror: (error: Error) => this.logger.debug(`MCP request rejected: ${error.message}`),
    };
    this.sdkHandler = createMcpHandler(() => serverFactory.create(), handlerOptions);
    this.listenSdkHandler = createMcpHandler(() => serverFactory.create(), {
      ...handlerOptions,
      bus: this.sdkHandler.bus,
    });
    this.nodeHandler = toNodeHandler(this.sdkHandler) as NodeHandler;
    this.listenNodeHandler = toNodeHandler(this.listenSdkHandler) as NodeHandler;
    adapterHost.init$.subscribe(() => {
      if (adapterHost.httpAdapter)
        mountOnHttpAdapter(adapterHost.httpAdapter, options.endpoint, (req, res) =>
          this.handle(req, res),
        );
    });
  }

  /** Serves one HTTP request addressed to the endpoint. Never throws. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      await this.serve(req, res);
    } catch (error) {
      this.logger.error(
        'MCP endpoint failure',
        error instanceof Error ? error.stack : String(error),
      );
      writeJsonRpcHttpError(res, 500, McpErrorCode.InternalError, 'Internal error');
    }
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.options.dnsRebindingProtection) {
      const refusal = this.policy.refusal(req);
      if (refusal) {
        req.resume();
        return writeJsonRpcHttpError(
          res,
          403,
          McpErrorCode.InvalidRequest,
          `Forbidden: ${refusal}`,
        );
      }
    }
    if (req.method !== 'POST') {
      return httpExchangeStorage.run({ request: req, losslessBody: undefined }, () =>
        this.nodeHandler(req, res),
      );
    }
    const body = await readRequestBody(req, this.options.body.maxBytes);
    if (!body.ok) {
      if (body.reason === 'aborted') return void res.destroy();
      res.setHeader('Connection', 'close');
      return writeJsonRpcHttpError(
        res,
        413,
        McpErrorCode.InvalidRequest,
        'Request body too large',
        null,
        {
          maxBytes: this.options.body.maxBytes,
        },
      );
    }
    const parsed = parseJsonBody(body.text, this.options.body);
    if (!parsed.ok) {
      if (parsed.reason === 'number_out_of_bounds') {
        return writeJsonRpcHttpError(
          res,
          400,
          McpErrorCode.InvalidParams,
          'Invalid params: a number is too long or its exponent too large',
          parsed.id,
        );
      }
      const message =
        parsed.reason === 'too_deep' ? 'Parse error: JSON nested too deeply' : 'Parse error';
      return writeJsonRpcHttpError(res, 400, McpErrorCode.ParseError, message);
    }
    const headerProblem = this.paramHeaderProblem(req, parsed.plain);
    if (headerProblem) {
      return writeJsonRpcHttpError(
        res,
        400,
        McpErrorCode.HeaderMismatch,
        `Header mismatch: ${headerProblem}`,
        (parsed.plain as { id?: unknown }).id,
      );
    }
    const listen = (parsed.plain as { method?: unknown } | null)?.method === 'subscriptions/listen';
    const nodeHandler = listen ? this.listenNodeHandler : this.nodeHandler;
    await httpExchangeStorage.run({ request: req, losslessBody: parsed.lossless }, () =>
      nodeHandler(req, res, parsed.plain),
    );
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
    await this.listenSdkHandler.close();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.sdkHandler.close();
  }
}
