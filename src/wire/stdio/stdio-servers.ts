import type { ServerContext } from '@modelcontextprotocol/server';
import { MCP_META_KEYS } from '../../kit/mcp.constants';
import type { ChangeEvent } from '../fleet/change-channel';
import type { McpSdkServer } from '../protocol/mcp-sdk-server';
import type { SdkServerFactory, SdkServerSource } from '../protocol/sdk-server.factory';
import type { McpStdioCaller } from './mcp-stdio-options.interface';
import { stdioExchange } from './stdio-exchange';
import type { StdioInputRounds } from './stdio-input-rounds';
import type { StdioLineTransport } from './stdio-line.transport';

const LIST_CHANGED = {
  tools: 'notifications/tools/list_changed',
  prompts: 'notifications/prompts/list_changed',
  resources: 'notifications/resources/list_changed',
} as const;

/** A server of the connection, and what a 2025-era one keeps of its client. */
interface Served {
  readonly server: McpSdkServer;
  readonly legacy: boolean;
  /** Resource URIs a 2025-era client subscribed to. */
  readonly subscriptions: Set<string>;
  logLevel: string | undefined;
}

/**
 * The module's SDK servers of one stdio connection, built by the same factory as the HTTP
 * endpoint's (the same handlers, dispatcher and runner): a 2026-07-28 one, whose requests carry
 * their envelope, and a 2025-era one, whose operations see what the client declared at
 * `initialize` as that envelope (capability gating reads it there) and whose calls ask the client
 * over the pipe between rounds. The SDK's `serveStdio` picks the era from the opening message and
 * asks {@link create} for the server; list changes and resource updates of this instance and of the
 * fleet reach its clients through {@link announce} (a 2026 client through its
 * `subscriptions/listen`, which the SDK's stdio entry serves; a 2025 one as a session hears them).
 * @internal
 */
export class StdioServers {
  private readonly served = new Set<Served>();

  constructor(
    private readonly factory: SdkServerFactory,
    private readonly transport: StdioLineTransport,
    private readonly rounds: StdioInputRounds,
    private readonly endpoint: string,
    private readonly caller: McpStdioCaller | undefined,
    private readonly answerTimeoutMs: number,
  ) {}

  create(era: 'modern' | 'legacy'): McpSdkServer {
    const exchangeOf: SdkServerSource['exchangeOf'] = (_method, ctx) =>
      this.transport.exchangeOf(ctx.mcpReq.id) ??
      stdioExchange(this.endpoint, this.caller, undefined, undefined);
    if (era === 'modern') return this.track(this.factory.create({ exchangeOf }), false);
    // Filled once the server exists: its handlers read it when they run.
    const of: { served?: Served } = {};
    const server = this.factory.create({
      exchangeOf,
      legacy: {
        contextOf: (ctx) => this.legacyContext(of.served as Served, ctx),
        callVia: (ctx) => ({
          run: (input) =>
            this.rounds.run(input, {
              request: (method, params) =>
                this.transport.request(method, params, this.answerTimeoutMs, ctx.mcpReq.signal),
            }),
          divert: false,
        }),
      },
    });
    const served = this.trackServed(server, true);
    of.served = served;
    server.setRequestHandler('logging/setLevel', (request) => {
      served.logLevel = request.params.level;
      return {};
    });
    server.setRequestHandler('resources/subscribe', (request) => {
      served.subscriptions.add(request.params.uri);
      return {};
    });
    server.setRequestHandler('resources/unsubscribe', (request) => {
      served.subscriptions.delete(request.params.uri);
      return {};
    });
    return server;
  }

  /** Tells the connection's client of a change, as its era hears of one. */
  announce(event: ChangeEvent): void {
    for (const served of this.served) {
      if (event.kind === 'listChanged')
        void served.server
          .notification({ method: LIST_CHANGED[event.list] })
          .catch(() => undefined);
      else if (
        event.kind === 'resourceUpdated' &&
        (!served.legacy || served.subscriptions.has(event.uri))
      )
        void served.server
          .notification({ method: 'notifications/resources/updated', params: { uri: event.uri } })
          .catch(() => undefined);
    }
  }

  private track(server: McpSdkServer, legacy: boolean): McpSdkServer {
    this.trackServed(server, legacy);
    return server;
  }

  private trackServed(server: McpSdkServer, legacy: boolean): Served {
    const served: Served = { server, legacy, subscriptions: new Set(), logLevel: undefined };
    this.served.add(served);
    const closed = server.onclose;
    server.onclose = () => {
      this.served.delete(served);
      closed?.();
    };
    return served;
  }

  /**
   * A 2025-era request's context as a 2026-07-28 one's: the protocol version, client info and
   * capabilities of `initialize`, and the log level of `logging/setLevel`, as its envelope.
   */
  private legacyContext(served: Served, ctx: ServerContext): ServerContext {
    const { server } = served;
    const envelope = {
      [MCP_META_KEYS.protocolVersion]: server.getNegotiatedProtocolVersion(),
      [MCP_META_KEYS.clientInfo]: server.getClientVersion(),
      [MCP_META_KEYS.clientCapabilities]: server.getClientCapabilities() ?? {},
      ...(served.logLevel !== undefined && { [MCP_META_KEYS.logLevel]: served.logLevel }),
    };
    return { ...ctx, mcpReq: { ...ctx.mcpReq, envelope } } as ServerContext;
  }
}
