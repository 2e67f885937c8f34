import { Injectable } from '@nestjs/common';
import type { ServerContext } from '@modelcontextprotocol/server';
import type { HttpExchange } from '../../pipeline/http-exchange';

/** The params of a request, as the client sent them (an object). @publicApi */
export type McpMethodParams = Record<string, unknown>;

/**
 * Serves one request of an extension's method: its params (checked by the handler itself), the
 * SDK's context of the request and the HTTP exchange it came on. Throw a `ProtocolError` to answer
 * a JSON-RPC error.
 * @publicApi
 */
export type McpMethodHandler = (
  params: McpMethodParams,
  sdk: ServerContext,
  exchange: HttpExchange,
) => Promise<McpMethodParams>;

/** Methods the core serves itself; an extension cannot take them over. */
const CORE_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'server/discover',
  'logging/setLevel',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'completion/complete',
  'subscriptions/listen',
]);

/** Which protocol eras an added method is served on. @publicApi */
export interface McpMethodEras {
  /**
   * Also served to 2025-era clients (a 2025-11-25 session), whose requests carry no per-request
   * envelope: the handler reads what the client declared from the SDK context as always. Default
   * false: a method that exists only on 2026-07-28 (`tasks/update`) stays -32601 there.
   */
  readonly legacy?: boolean;
}

/**
 * The seam where an extension adds methods (`tasks/get`, `skills/list`…): method → handler, filled
 * while the module initializes and read by the SDK server with one lookup per method, and by a
 * 2025-era session for the methods added for that era too. The core's own methods are served by
 * the dispatcher and cannot be registered here. Inject it in an extension's provider and register
 * in `onModuleInit`.
 *
 * @example
 * ```ts
 * this.methods.register('notes/list', async () => ({ notes: await this.store.list() }));
 * ```
 * @publicApi
 */
@Injectable()
export class McpMethodTable {
  private readonly handlers = new Map<string, McpMethodHandler>();
  private readonly legacyHandlers = new Map<string, McpMethodHandler>();

  /** Adds `method`; a method registered twice, or one of the core's, fails startup. */
  register(method: string, handler: McpMethodHandler, eras: McpMethodEras = {}): void {
    if (CORE_METHODS.has(method) || this.handlers.has(method))
      throw new Error(`The MCP method "${method}" is served already; an extension cannot add it`);
    this.handlers.set(method, handler);
    if (eras.legacy === true) this.legacyHandlers.set(method, handler);
  }

  /** The handler of `method`, if an extension added it. @internal */
  get(method: string): McpMethodHandler | undefined {
    return this.handlers.get(method);
  }

  /**
   * The handler of `method` for a 2025-era client, if an extension added it for that era too.
   * @internal
   */
  legacy(method: string): McpMethodHandler | undefined {
    return this.legacyHandlers.get(method);
  }

  /** Every added method with its handler. @internal */
  entries(): IterableIterator<[string, McpMethodHandler]> {
    return this.handlers.entries();
  }
}

/**
 * A schema for the SDK's `setRequestHandler` that accepts any params object: an extension's
 * handler checks its own params, after its capability gate.
 * @internal
 */
export const ANY_PARAMS = {
  '~standard': {
    version: 1 as const,
    vendor: 'nestjs-mcp',
    validate: (value: unknown) => ({ value: value as McpMethodParams }),
    types: undefined as unknown as { readonly input: unknown; readonly output: McpMethodParams },
  },
};
