import { Injectable } from '@nestjs/common';
import { McpEndpointRoutes } from '../http/endpoint-routes';
import { taken, type EndpointRequest, type EndpointStage } from '../http/endpoint-stage';
import { isLegacyRequest } from '../http/legacy-request';
import { RequestAdmission } from '../http/request-admission';
import { ListenEndpoint } from './listen-endpoint';

/**
 * The endpoint's stage for `subscriptions/listen`: taken by the {@link ListenEndpoint} — but inside
 * a 2025-era session, where it is a method the session does not have (-32601), passed on.
 * @internal
 */
@Injectable()
export class ListenRequests implements EndpointStage {
  constructor(
    private readonly listen: ListenEndpoint,
    private readonly admission: RequestAdmission,
    private readonly routes: McpEndpointRoutes,
  ) {}

  take(current: EndpointRequest): boolean | Promise<boolean> {
    const message = current.checked?.message;
    if ((message as { method?: unknown } | null)?.method !== 'subscriptions/listen') return false;
    if (this.routes.legacy && isLegacyRequest(current.raw, message)) return false;
    // A held stream keeps no body, so it holds none of the body budget either.
    this.admission.releaseBody(current.raw);
    return taken(
      Promise.resolve(this.listen.serve(current.request, current.raw, current.response, message)),
    );
  }
}
