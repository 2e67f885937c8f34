import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost, ModulesContainer } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ProtectedResource } from '../../auth/protected-resource';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import type { McpHttpRequest } from '../../input/mcp-operation-context.interface';
import { SERVER_OPTIONS, type ServerOptions } from '../protocol/server.options';
import { writeJsonRpcHttpError } from '../../kit/json-rpc-http-error';
import { serveMetadataDocument } from './metadata-document';
import { McpEndpointRoutes } from './endpoint-routes';
import { ENDPOINT_STAGES, type EndpointRequest, type EndpointStage } from './endpoint-stage';
import {
  endpointMounting,
  type EndpointMounting,
  type MountableEndpoint,
} from './http-adapter-mount';
import { providerOwners } from './endpoint-owners';
import { mountMetadataRoutes } from './metadata-route';
import { RequestAdmission } from './request-admission';
import { ServerCard, serverCardPath } from './server-card';
import { TRANSPORT_OPTIONS, type TransportOptions } from './transport.options';

/**
 * The MCP HTTP endpoint, part of the host app's HTTP stack on Express or Fastify. It mounts
 * itself in two steps: {@link admit}, ahead of Nest's body parsers, takes the request in
 * (DNS-rebinding protection, the bounded raw body: {@link RequestAdmission}); {@link handle},
 * after the app's own middleware like any route, hands the request to its stages in order
 * (`endpoint-stages.provider.ts`: admission, bodiless requests, the message checks, the resource
 * server, `subscriptions/listen`, the fast path, 2025-era traffic, the SDK) until one takes it.
 * @internal
 */
@Injectable()
export class McpHttpEndpoint implements MountableEndpoint, OnModuleInit {
  private readonly logger = new Logger('McpModule');
  private mounting: EndpointMounting | undefined;
  private mountFailure: unknown;

  /** The path it serves. */
  readonly path: string;

  constructor(
    @Inject(TRANSPORT_OPTIONS) options: TransportOptions,
    @Inject(SERVER_OPTIONS) server: ServerOptions,
    adapterHost: HttpAdapterHost,
    private readonly modules: ModulesContainer,
    private readonly admission: RequestAdmission,
    @Inject(ENDPOINT_STAGES) private readonly stages: readonly EndpointStage[],
    routes: McpEndpointRoutes,
    resource: ProtectedResource,
  ) {
    this.path = options.endpoint;
    adapterHost.init$.subscribe(() => {
      if (!adapterHost.httpAdapter) return;
      // Thrown from here it would escape Nest's startup: it is rethrown from onModuleInit.
      try {
        this.mounting = endpointMounting(adapterHost.httpAdapter, options.endpoint, this);
        this.mounting.early();
        mountMetadataRoutes(adapterHost.httpAdapter, resource.metadataPaths, (req, res) =>
          serveMetadataDocument(resource, req, res),
        );
        if (server.serverCard) {
          const card = new ServerCard(
            server.serverInfo,
            resource,
            () => routes.legacy?.protocolVersions ?? [],
          );
          mountMetadataRoutes(
            adapterHost.httpAdapter,
            [serverCardPath(options.endpoint)],
            (req, res) => card.serve(req, res),
          );
        }
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
      const current: EndpointRequest = { request, raw: req, response: res };
      for (const stage of this.stages) {
        const taken = stage.take(current);
        if (taken === true || (taken !== false && (await taken))) return;
      }
    } catch (error) {
      this.fail(res, error);
    }
  }

  private fail(res: ServerResponse, error: unknown): void {
    this.logger.error('MCP endpoint failure', error instanceof Error ? error.stack : String(error));
    if (!res.headersSent)
      writeJsonRpcHttpError(res, 500, McpErrorCode.InternalError, 'Internal error');
  }
}
