import type { AbstractHttpAdapter } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';

type Serve = (req: IncomingMessage, res: ServerResponse) => void;

interface ExpressLike {
  use(
    handler: (
      req: IncomingMessage & { originalUrl?: string },
      res: ServerResponse,
      next: () => void,
    ) => void,
  ): void;
}

interface FastifyLike {
  route(options: {
    method: string[];
    url: string;
    handler: (
      request: { raw: IncomingMessage },
      reply: { raw: ServerResponse; hijack(): void },
    ) => Promise<void>;
  }): void;
}

function pathOf(url: string | undefined): string {
  return (url ?? '/').split('?')[0];
}

/**
 * Serves a GET (and its CORS preflight) at each of `paths` on the host app's HTTP stack, ahead of
 * the app's own routes: the RFC 9728 protected-resource metadata, the server card.
 * @internal
 */
export function mountMetadataRoutes(
  adapter: AbstractHttpAdapter,
  paths: readonly string[],
  serve: Serve,
): void {
  if (paths.length === 0) return;
  if (adapter.getType() === 'express') {
    const wanted = new Set(paths);
    adapter.getInstance<ExpressLike>().use((req, res, next) => {
      if (!wanted.has(pathOf(req.originalUrl ?? req.url))) return next();
      serve(req, res);
    });
    return;
  }
  if (adapter.getType() === 'fastify') {
    const fastify = adapter.getInstance<FastifyLike>();
    for (const url of paths)
      fastify.route({
        method: ['GET', 'HEAD', 'OPTIONS'],
        url,
        handler: async (request, reply) => {
          reply.hijack();
          serve(request.raw, reply.raw);
        },
      });
  }
}
