import { Injectable } from '@nestjs/common';
import { McpEndpointRoutes } from './endpoint-routes';
import { exchangeOf, taken, type EndpointRequest, type EndpointStage } from './endpoint-stage';
import { isLegacyRequest } from './legacy-request';

/**
 * The endpoint's stage for 2025-era traffic on a `POST` (`initialize`, requests without the
 * per-request envelope, posted answers, as the SDK's classifier tells it): taken by the extension
 * that serves it ({@link McpEndpointRoutes}: the sessions extension); without one, passed on to the
 * SDK, which refuses it.
 * @internal
 */
@Injectable()
export class LegacyRequests implements EndpointStage {
  constructor(private readonly routes: McpEndpointRoutes) {}

  take(current: EndpointRequest): boolean | Promise<boolean> {
    const legacy = this.routes.legacy;
    if (!legacy || !isLegacyRequest(current.raw, current.checked?.message)) return false;
    return taken(legacy.serve({ ...exchangeOf(current), text: current.text }));
  }
}
