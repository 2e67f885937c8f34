import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpHttpRequest } from '../../input/mcp-operation-context.interface';
import { McpServedRequests } from '../protocol/served-requests';
import { observedMessageOf } from '../protocol/served-request';
import { writeJsonRpcHttpError } from '../../kit/json-rpc-http-error';
import { LISTEN_LIMITS, type ListenLimits } from './listen-limits';
import { openListenStream } from './listen-stream.opener';
import { ListenStreamLimiter, listenCallerKey } from './listen-stream.limiter';
import { ListenStreams } from './listen-streams';
import { McpListenRoutes } from './listen-routes';
import { SdkHandlers } from '../http/sdk-handlers';

/**
 * `subscriptions/listen` requests: refused over the listen limits, else served while holding a
 * stream slot, released once when the stream ends (client gone, application shutdown, or an error
 * answered instead of a stream). A stream an extension serves ({@link McpListenRoutes}: the tasks
 * extension's follow tasks) is the extension's; every other one the SDK validates and acknowledges, and {@link ListenStreams} holds and writes to. No guard
 * or operation runs for a listen request, so its message is kept on neither the request nor a
 * suspended frame.
 * @internal
 */
@Injectable()
export class ListenEndpoint implements BeforeApplicationShutdown {
  private readonly logger = new Logger('McpModule');
  /** Counts listen streams, in total and per caller, and refuses those over the limits. */
  readonly limiter: ListenStreamLimiter;

  constructor(
    @Inject(LISTEN_LIMITS) limits: ListenLimits,
    private readonly handlers: SdkHandlers,
    private readonly routes: McpListenRoutes,
    private readonly served: McpServedRequests,
    private readonly streams: ListenStreams,
  ) {
    this.limiter = new ListenStreamLimiter(limits);
  }

  /** Serves the stream; observed, under one SERVER span that lasts as long as the stream. */
  serve(
    request: McpHttpRequest,
    req: IncomingMessage,
    res: ServerResponse,
    message: unknown,
  ): Promise<void> | void {
    if (!this.served.observing()) {
      const opened = this.open(request, req, res, message);
      return typeof opened === 'number' ? undefined : opened;
    }
    const http = { request, raw: req, response: res };
    return this.served
      .observed<number | void>(
        observedMessageOf('subscriptions/listen', message, http),
        () => this.open(request, req, res, message),
        (refused) => (typeof refused === 'number' ? { errorType: String(refused) } : {}),
      )
      .then(() => undefined);
  }

  /** Opens the stream, or answers its refusal and gives its JSON-RPC code. */
  private open(
    request: McpHttpRequest,
    req: IncomingMessage,
    res: ServerResponse,
    message: unknown,
  ): Promise<void> | number {
    const filterRefusal = this.limiter.filterRefusal(message);
    const admission = filterRefusal
      ? { admitted: false as const, refusal: filterRefusal }
      : this.limiter.acquire(listenCallerKey(request, req));
    if (!admission.admitted) {
      const { status, code, message: text, data } = admission.refusal;
      this.logger.debug(`subscriptions/listen refused: ${data.limit} (${data.max})`);
      const id = (message as { id?: unknown }).id;
      writeJsonRpcHttpError(res, status, code, text, id, data);
      return code;
    }
    try {
      const route = this.routes.for(message);
      const stream = route
        ? route.serve(request, req, res, message)
        : this.serveStream(req, res, message);
      return stream.finally(admission.release);
    } catch (error) {
      admission.release();
      throw error;
    }
  }

  /** Has the SDK acknowledge the stream, then holds it until it ends. */
  private async serveStream(
    req: IncomingMessage,
    res: ServerResponse,
    message: unknown,
  ): Promise<void> {
    const acknowledged = await openListenStream(this.handlers.listen, req, res, message);
    if (acknowledged) await this.streams.hold(res, acknowledged.idJson, acknowledged.filter);
  }

  /** Ends open listen streams, the extensions' too, each with its final result. */
  beforeApplicationShutdown(): void {
    this.streams.closeAll();
    this.routes.closeAll();
  }
}
