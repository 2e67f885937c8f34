import { Injectable } from '@nestjs/common';
import { ProtocolError, type ServerContext } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { McpTelemetry } from '../../observability/mcp-telemetry.service';
import type { ObservedRequest, RequestEnd } from '../../observability/observed-request';
import type { CallHttp } from '../../pipeline/operation-call';
import type { MaybePromise } from '../../kit/maybe-promise';
import { observedRequestOf } from './served-request';

/**
 * The span and duration of every request that runs no operation (`tools/list`, `initialize`,
 * `ping`, `tasks/get`, a listen stream…), whichever path serves it: the fast path for its lists, the
 * SDK server for each of its handlers, the sessions extension for a session's requests, the listen
 * endpoint for a stream. The operations' own requests are the runner's to observe
 * (`OPERATION_METHODS`).
 * @internal
 */
@Injectable()
export class McpServedRequests {
  constructor(private readonly telemetry: McpTelemetry) {}

  /** Whether requests are observed now (a tracer or meter provider, or a flow-event subscriber). */
  observing(): boolean {
    return this.telemetry.observing();
  }

  /**
   * Serves a request that runs no operation (`tools/list`, `initialize`, `ping`, `tasks/get`…)
   * under one SERVER span named after its method, with its `mcp.server.operation.duration`; every
   * path (fast, SDK, session) serves those methods through here. The operations' own requests are
   * the runner's to observe (`OPERATION_METHODS`). Unobserved, `serve` just runs.
   */
  served<T>(
    method: string,
    sdk: ServerContext | undefined,
    http: CallHttp,
    serve: () => MaybePromise<T>,
  ): MaybePromise<T> {
    if (!this.telemetry.observing()) return serve();
    return this.observed(observedRequestOf(method, sdk, http), serve);
  }

  /**
   * {@link served} for a request described already (a session's `initialize`, a listen stream);
   * `endOf` says how a request `serve` answered itself ended: the error it was answered with, the
   * session it opened.
   */
  async observed<T>(
    request: ObservedRequest,
    serve: () => MaybePromise<T>,
    endOf?: (value: T) => RequestEnd,
  ): Promise<T> {
    const observation = this.telemetry.beginRequest(request);
    let value: T;
    try {
      value = await observation.within(async () => serve());
    } catch (error) {
      observation.end(
        String(error instanceof ProtocolError ? error.code : McpErrorCode.InternalError),
      );
      throw error;
    }
    const ended = endOf?.(value);
    observation.end(ended?.errorType, ended?.sessionId);
    return value;
  }
}
