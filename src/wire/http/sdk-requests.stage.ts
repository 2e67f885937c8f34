import { Injectable } from '@nestjs/common';
import { sdkRequestExchange } from '../protocol/sdk-request-exchange';
import { exchangeOf, taken, type EndpointRequest, type EndpointStage } from './endpoint-stage';
import { SdkHandlers } from './sdk-handlers';

/**
 * The endpoint's last stage: everything no stage before took goes to the official SDK's handler,
 * with the exchange it came on (the one AsyncLocalStorage, `sdkRequestExchange`).
 * @internal
 */
@Injectable()
export class SdkRequests implements EndpointStage {
  constructor(private readonly handlers: SdkHandlers) {}

  take(current: EndpointRequest): Promise<boolean> {
    const exchange = exchangeOf(current);
    return taken(
      sdkRequestExchange.run(exchange, () =>
        this.handlers.node(current.raw, current.response, exchange.message),
      ),
    );
  }
}
