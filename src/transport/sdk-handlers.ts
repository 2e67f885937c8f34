import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { SdkServerFactory } from '../protocol/sdk-server.factory';
import { LISTEN_LIMITS, type ListenLimits } from './listen-limits';
import { TRANSPORT_OPTIONS, type TransportOptions } from './transport.options';

type NodeHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  parsedBody?: unknown,
) => Promise<void>;

/**
 * The official SDK's HTTP handlers (`createMcpHandler` over the module's low-level server): one
 * for every request the fast path leaves to the SDK, one on the same event bus only for
 * `subscriptions/listen`. Listen streams never end by themselves, so their handler is closed
 * before Nest closes the HTTP server (which waits for open responses), while ordinary calls
 * still in flight are left to finish.
 * @internal
 */
@Injectable()
export class SdkHandlers implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('McpModule');
  /** The main handler; its `notify` publishes list-changed events to open subscriptions. */
  readonly main: McpHttpHandler;
  readonly listen: McpHttpHandler;
  /** The main handler on Node's request and response. */
  readonly node: NodeHandler;

  constructor(
    @Inject(TRANSPORT_OPTIONS) options: TransportOptions,
    @Inject(LISTEN_LIMITS) listen: ListenLimits,
    serverFactory: SdkServerFactory,
  ) {
    const handlerOptions = {
      // 2025-era traffic is the session endpoint's; whatever reaches the SDK here is modern or
      // refused (sessions disabled): never served statelessly, which would over-promise.
      legacy: 'reject' as const,
      keepAliveMs: options.keepAliveMs,
      maxRequestBodySize: options.body.maxBytes,
      onerror: (error: Error) => this.logger.debug(`MCP request rejected: ${error.message}`),
    };
    this.main = createMcpHandler(() => serverFactory.create(), handlerOptions);
    this.listen = createMcpHandler(() => serverFactory.create(), {
      ...handlerOptions,
      bus: this.main.bus,
      // The SDK's own cap stays as a backstop; the module's answers first, before a stream opens.
      maxSubscriptions: listen.maxStreams,
    });
    this.node = toNodeHandler(this.main) as NodeHandler;
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.listen.close();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.main.close();
  }
}
