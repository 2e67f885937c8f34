import { Injectable } from '@nestjs/common';
import { sdkRequestExchange } from '../protocol/sdk-request-exchange';
import { EndpointAuthentication } from './endpoint-authentication';
import { McpEndpointRoutes } from './endpoint-routes';
import { taken, type EndpointRequest, type EndpointStage } from './endpoint-stage';
import { SdkHandlers } from './sdk-handlers';

/**
 * The endpoint's stage for requests without a JSON-RPC body (`GET`, `DELETE`, a `POST` with none):
 * a 2025-era session's stream or end goes to the route that serves sessions — its caller
 * authenticated first, as its calls are — and the rest to the SDK, which answers them.
 * @internal
 */
@Injectable()
export class BodilessRequests implements EndpointStage {
  constructor(
    private readonly routes: McpEndpointRoutes,
    private readonly authentication: EndpointAuthentication,
    private readonly handlers: SdkHandlers,
  ) {}

  take(current: EndpointRequest): boolean | Promise<boolean> {
    const { raw: req, response: res, request, text } = current;
    if (req.method === 'POST' && text !== undefined) return false;
    const exchange = { request, raw: req, response: res, message: undefined };
    const legacy = this.routes.legacy;
    if (legacy && (req.method === 'GET' || req.method === 'DELETE'))
      // A session is its caller's: its stream and its end need the same principal as its calls.
      return (
        this.authentication.enabled
          ? this.authentication.authenticate(request, req, res, undefined)
          : Promise.resolve(true)
      ).then(
        (authenticated) =>
          !authenticated ||
          taken(legacy.serve({ ...exchange, exactInputResponses: undefined, text })),
      );
    return taken(
      sdkRequestExchange.run({ ...exchange, exactInputResponses: undefined }, () =>
        this.handlers.node(req, res),
      ),
    );
  }
}
