import type { AbstractHttpAdapter } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

function pathOf(url: string | undefined): string {
  const path = (url ?? '/').split('?')[0];
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

interface FastifyLike {
  route(options: {
    method: string[];
    url: string;
    onRequest: (
      request: { raw: IncomingMessage },
      reply: { raw: ServerResponse; hijack(): void },
    ) => Promise<unknown>;
    handler: () => Promise<void>;
  }): void;
}

interface ExpressLike {
  use(
    handler: (
      req: IncomingMessage & { originalUrl?: string },
      res: ServerResponse,
      next: () => void,
    ) => void,
  ): void;
}

/**
 * Mounts the endpoint on the adapter's underlying server before Nest registers its body parsers,
 * so the endpoint reads the raw body itself (exact numbers, its own limits and JSON-RPC errors).
 */
export function mountOnHttpAdapter(
  adapter: AbstractHttpAdapter,
  endpoint: string,
  handle: NodeHandler,
): void {
  const type = adapter.getType();
  if (type === 'fastify') {
    const fastify = adapter.getInstance<FastifyLike>();
    fastify.route({
      method: ['GET', 'POST', 'DELETE'],
      url: endpoint,
      // Taking over in onRequest keeps Fastify's content parsers away from the body.
      onRequest: async (request, reply) => {
        reply.hijack();
        await handle(request.raw, reply.raw);
        return reply;
      },
      handler: async () => undefined,
    });
    return;
  }
  if (type === 'express') {
    adapter.getInstance<ExpressLike>().use((req, res, next) => {
      if (pathOf(req.originalUrl ?? req.url) === endpoint) void handle(req, res);
      else next();
    });
    return;
  }
  throw new Error(
    `McpModule cannot mount its endpoint on the "${type}" HTTP adapter; use Express or Fastify`,
  );
}
