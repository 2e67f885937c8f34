import { Injectable } from '@nestjs/common';
import type { HttpExchange } from '../../pipeline/http-exchange';

/** An exchange of 2025-era traffic, with the body as received. @internal */
export interface LegacyHttpExchange extends HttpExchange {
  /** The body as received (a posted answer keeps its exact numbers through it). */
  readonly text: string | undefined;
}

/**
 * Serves 2025-era traffic on the endpoint — `initialize`, requests without the per-request
 * envelope, posted answers, `GET` streams and `DELETE` — as the SDK's classifier tells it.
 * @internal
 */
export interface McpLegacyRoute {
  serve(exchange: LegacyHttpExchange): Promise<void>;
  /** The 2025-era protocol revisions it negotiates (what the server card lists beside 2026-07-28). */
  readonly protocolVersions: readonly string[];
}

/**
 * The seam where an extension takes a kind of the endpoint's traffic: today 2025-era clients (the
 * sessions extension). Without one, the SDK answers such traffic as it does (it refuses it).
 * @internal
 */
@Injectable()
export class McpEndpointRoutes {
  private legacyRoute: McpLegacyRoute | undefined;

  /** Takes 2025-era traffic; one extension at most. */
  serveLegacy(route: McpLegacyRoute): void {
    if (this.legacyRoute) throw new Error('2025-era MCP traffic is served by another extension');
    this.legacyRoute = route;
  }

  /** Who serves 2025-era traffic, if an extension does. */
  get legacy(): McpLegacyRoute | undefined {
    return this.legacyRoute;
  }
}
