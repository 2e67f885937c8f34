import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost, ModulesContainer } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { ProtectedResource } from '../../auth/protected-resource';
import { ResourceServer } from '../../auth/resource-server';
import { McpOperationRegistry } from '../../operations/discovery/mcp-operation.registry';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import type { McpHttpRequest } from '../../input/mcp-operation-context.interface';
import type { HttpExchange } from '../../pipeline/http-exchange';
import { McpDispatcher } from '../protocol/mcp-dispatcher.service';
import { McpServedRequests } from '../protocol/served-requests';
import { sdkRequestExchange } from '../protocol/sdk-request-exchange';
import { SERVER_OPTIONS, type ServerOptions } from '../protocol/server.options';
import { writeJsonRpcHttpError } from '../../kit/json-rpc-http-error';
import { AnonymousAccess } from './anonymous-access';
import { EndpointAuthentication } from './endpoint-authentication';
import { serveMetadataDocument } from './metadata-document';
import { McpEndpointRoutes } from './endpoint-routes';
import { McpFastPath } from './fast-path';
import {
  endpointMounting,
  type EndpointMounting,
  type MountableEndpoint,
} from './http-adapter-mount';
import { providerOwners } from './endpoint-owners';
import { ListenEndpoint } from '../listen/listen-endpoint';
import { mountMetadataRoutes } from './metadata-route';
import { MessageChecks } from './message-checks';
import { RequestAdmission } from './request-admission';
import { SdkHandlers } from './sdk-handlers';
import { TRANSPORT_OPTIONS, type TransportOptions } from './transport.options';

/**
 * The MCP HTTP endpoint, part of the host app's HTTP stack on Express or Fastify. It mounts
 * itself in two steps: {@link admit}, ahead of Nest's body parsers, takes the request in
 * (DNS-rebinding protection, the bounded raw body: {@link RequestAdmission}); {@link handle},
 * after the app's own middleware like any route, checks the message ({@link MessageChecks}) and
 * routes it — `subscriptions/listen` to the {@link ListenEndpoint}, the hot 2026-07-28 methods to
 * the fast path, 2025-era traffic (as the SDK's classifier tells it: `initialize`, requests without
 * the per-request envelope, posted answers, `GET` and `DELETE`) to the extension that serves it
 * ({@link McpEndpointRoutes}: the sessions extension), everything else to the official SDK's
 * handler with the exchange it came on.
 * @internal
 */
@Injectable()
export class McpHttpEndpoint implements MountableEndpoint, OnModuleInit {
  private readonly logger = new Logger('McpModule');
  private readonly admission: RequestAdmission;
  private readonly checks: MessageChecks;
  /** The built-in resource server's check of the bearer token, before any guard. */
  private readonly authentication: EndpointAuthentication;
  /** Serves the hot methods without the SDK (`fastPath` option). */
  private readonly fastPath: McpFastPath | undefined;
  private mounting: EndpointMounting | undefined;
  private mountFailure: unknown;

  /** The path it serves. */
  readonly path: string;

  constructor(
    @Inject(TRANSPORT_OPTIONS) options: TransportOptions,
    @Inject(SERVER_OPTIONS) server: ServerOptions,
    adapterHost: HttpAdapterHost,
    registry: McpOperationRegistry,
    dispatcher: McpDispatcher,
    served: McpServedRequests,
    private readonly handlers: SdkHandlers,
    private readonly listen: ListenEndpoint,
    private readonly modules: ModulesContainer,
    private readonly routes: McpEndpointRoutes,
    private readonly resource: ProtectedResource,
    private readonly resourceServer: ResourceServer,
  ) {
    this.path = options.endpoint;
    this.admission = new RequestAdmission(options);
    this.checks = new MessageChecks(options.body, registry);
    this.authentication = new EndpointAuthentication(
      this.resourceServer,
      this.resource,
      new AnonymousAccess(registry),
    );
    this.fastPath = options.fastPath
      ? new McpFastPath(server, dispatcher, served, this.resource)
      : undefined;
    adapterHost.init$.subscribe(() => {
      if (!adapterHost.httpAdapter) return;
      // Thrown from here it would escape Nest's startup: it is rethrown from onModuleInit.
      try {
        this.mounting = endpointMounting(adapterHost.httpAdapter, options.endpoint, this);
        this.mounting.early();
        mountMetadataRoutes(adapterHost.httpAdapter, this.resource.metadataPaths, (req, res) =>
          serveMetadataDocument(this.resource, req, res),
        );
      } catch (error) {
        this.mountFailure = error;
      }
    });
  }

  /** Nest calls this after registering the app's middleware and routes, before its 404 handler. */
  onModuleInit(): void {
    this.refuseSecondModule();
    if (this.mountFailure !== undefined) throw this.mountFailure;
    this.mounting?.late();
  }

  /**
   * Two `McpModule`s on one path would both take every request's body, and the second would wait
   * for a body already read: every request would time out. That fails startup instead, naming them.
   */
  private refuseSecondModule(): void {
    const { instances, importedBy } = providerOwners(this.modules, McpHttpEndpoint);
    if (instances.filter((endpoint) => endpoint.path === this.path).length < 2) return;
    throw new Error(
      `McpModule is registered more than once for the endpoint ${this.path} (imported by ` +
        `${importedBy.join(' and ')}). Import McpModule.forRoot() once (it is global), or give ` +
        'each its own `endpoint`.',
    );
  }

  async admit(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    try {
      return await this.admission.admitEarly(req, res);
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

  private async serve(
    request: McpHttpRequest,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    if (!this.admission.admitted(req) && !(await this.admission.admit(req, res))) return;
    const text = this.admission.takeBody(req);
    if (req.method !== 'POST' || text === undefined) {
      const exchange = { request, raw: req, response: res, message: undefined };
      const legacy = this.routes.legacy;
      if (legacy && (req.method === 'GET' || req.method === 'DELETE')) {
        // A session is its caller's: its stream and its end need the same principal as its calls.
        if (
          this.resourceServer.enabled &&
          !(await this.authentication.authenticate(request, req, res, undefined))
        )
          return;
        return legacy.serve({ ...exchange, exactInputResponses: undefined, text });
      }
      return sdkRequestExchange.run({ ...exchange, exactInputResponses: undefined }, () =>
        this.handlers.node(req, res),
      );
    }
    const checked = this.checks.check(req, res, text);
    if (!checked) return;
    if (
      this.resourceServer.enabled &&
      !(await this.authentication.authenticate(request, req, res, checked.message))
    )
      return;
    const legacy = this.routes.legacy;
    if (
      (checked.message as { method?: unknown } | null)?.method === 'subscriptions/listen' &&
      // Inside a 2025-era session it is a method the session does not have (-32601).
      !(legacy && isLegacy(req, checked.message))
    ) {
      // A held stream keeps no body, so it holds none of the body budget either.
      this.admission.releaseBody(req);
      return this.listen.serve(request, req, res, checked.message);
    }
    // Guards that read the body see the JSON-RPC message, as after Nest's own JSON parser.
    (request as { body?: unknown }).body = checked.message;
    const exchange: HttpExchange = { request, raw: req, response: res, ...checked };
    const fast = this.fastPath?.accepts(req, checked.message);
    if (fast && this.fastPath) return this.fastPath.serve(fast, exchange);
    if (legacy && isLegacy(req, checked.message)) return legacy.serve({ ...exchange, text });
    await sdkRequestExchange.run(exchange, () => this.handlers.node(req, res, checked.message));
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** Whether the SDK routes this POST to 2025-era serving: its own classifier decides. */
function isLegacy(req: IncomingMessage, message: unknown): boolean {
  return (
    classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: header(req, 'mcp-protocol-version'),
      mcpMethodHeader: header(req, 'mcp-method'),
      mcpNameHeader: header(req, 'mcp-name'),
      body: message,
    }).kind === 'legacy'
  );
}
