import { Injectable } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpHttpRequest } from '../../input/mcp-operation-context.interface';

/**
 * A kind of `subscriptions/listen` stream an extension serves itself (the tasks extension's streams
 * that follow tasks): asked in order, after the listen limits admitted the stream.
 * @internal
 */
export interface McpListenRoute {
  /** Whether this listen request is the route's to serve (by its filter). */
  follows(message: unknown): boolean;
  /** Serves the stream until the client goes away or the application shuts down. */
  serve(
    request: McpHttpRequest,
    req: IncomingMessage,
    res: ServerResponse,
    message: unknown,
  ): Promise<void>;
  /** Ends every open stream of the route with its final result (on shutdown). */
  closeAll(): void;
}

/**
 * The seam where an extension adds listen streams of its own; every other filter is the core's
 * (`ListenStreams`).
 * @internal
 */
@Injectable()
export class McpListenRoutes {
  private readonly routes: McpListenRoute[] = [];

  /** Adds a route, asked after those added before it. */
  add(route: McpListenRoute): void {
    this.routes.push(route);
  }

  /** The route that serves `message`, if an extension's does. */
  for(message: unknown): McpListenRoute | undefined {
    for (const route of this.routes) if (route.follows(message)) return route;
    return undefined;
  }

  /** Ends every extension's open streams. */
  closeAll(): void {
    for (const route of this.routes) route.closeAll();
  }
}
