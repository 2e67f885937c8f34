import type { AbstractHttpAdapter } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpHttpRequest } from '../../input/mcp-operation-context.interface';

/** What the endpoint offers the host framework. @internal */
export interface MountableEndpoint {
  /**
   * The early step, ahead of the app's middleware and body parsers: the raw body (a request the
   * host/origin policy refuses goes on without it, to be refused by {@link handle} after the app's
   * middleware and CORS). Resolves `false` when it has answered the request itself.
   */
  admit(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** Serves the request; `request` is the framework's own request object. Never rejects. */
  handle(request: McpHttpRequest, req: IncomingMessage, res: ServerResponse): Promise<void>;
}

type ExpressRequest = IncomingMessage & { originalUrl?: string };
type ExpressMiddleware = (req: ExpressRequest, res: ServerResponse, next: () => void) => void;

interface ExpressLike {
  use(handler: ExpressMiddleware): void;
}

interface FastifyLike {
  route(options: {
    method: string[];
    url: string;
    onRequest: (
      request: McpHttpRequest & { raw: IncomingMessage },
      reply: { raw: ServerResponse; hijack(): void },
    ) => Promise<unknown>;
    handler: () => Promise<void>;
  }): void;
}

function pathOf(url: string | undefined): string {
  const path = (url ?? '/').split('?')[0];
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

/** Mounts the endpoint on an adapter, in the two steps the framework allows. @internal */
export interface EndpointMounting {
  /** Right after the HTTP adapter exists, before any middleware or body parser. */
  early(): void;
  /** After the app's middleware and routes, before the framework's not-found handler. */
  late(): void;
}

/**
 * Makes the MCP endpoint part of the host app's HTTP stack. On Express the raw body is taken by
 * an early middleware (so Nest's JSON parser leaves it alone) and the endpoint is served after
 * every `app.use()` middleware, module middleware and CORS handler. On Fastify it is a route whose
 * own `onRequest` hook takes over after the global hooks (middleware, CORS, helmet) ran, ahead of
 * Fastify's content parsers.
 * @internal
 */
export function endpointMounting(
  adapter: AbstractHttpAdapter,
  endpoint: string,
  target: MountableEndpoint,
): EndpointMounting {
  const type = adapter.getType();
  if (type === 'express') {
    const app = adapter.getInstance<ExpressLike>();
    const matches = (req: ExpressRequest) => pathOf(req.originalUrl ?? req.url) === endpoint;
    return {
      early: () =>
        app.use((req, res, next) => {
          if (!matches(req)) return next();
          void target.admit(req, res).then((admitted) => admitted && next());
        }),
      late: () =>
        app.use((req, res, next) => {
          if (!matches(req)) return next();
          void target.handle(req as McpHttpRequest, req, res);
        }),
    };
  }
  if (type === 'fastify') {
    const fastify = adapter.getInstance<FastifyLike>();
    return {
      early: () =>
        fastify.route({
          method: ['GET', 'POST', 'DELETE'],
          url: endpoint,
          onRequest: async (request, reply) => {
            reply.hijack();
            await target.handle(request, request.raw, reply.raw);
            return reply;
          },
          handler: async () => undefined,
        }),
      late: () => undefined,
    };
  }
  throw new Error(
    `McpModule cannot mount its endpoint on the "${type}" HTTP adapter; use Express or Fastify`,
  );
}
