import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { ServerContext } from '@modelcontextprotocol/server';
import { SESSION_OPTIONS, type SessionOptions } from '../session.options';
import {
  GlobalGuards,
  McpOperationRegistry,
  ResourceServer,
  type CallHttp,
  type McpOperationContext,
} from '../../../extension-api';

const NEVER = new AbortController().signal;

/**
 * Authenticates a 2025-era session's requests the way the app authenticates its operations: the
 * app's global guards run for `initialize` and for every later request of the session (`POST`,
 * `GET`, `DELETE`) in the `'mcp'` context, before the session is found or opened — so a
 * passport-style guard sets `req.user` and the session is owned by the caller it names, and a
 * guard's 401 or 403 is the request's HTTP status. Only global guards run (a session request
 * belongs to no operation); the operations' own guards still run for each call. A guard tells a
 * session request by `McpExecutionContext.create(context).getMcpContext().method` (`initialize`,
 * `GET`, `DELETE`, or the request's method).
 * @internal
 */
@Injectable()
export class SessionGate implements OnApplicationBootstrap {
  private readonly logger = new Logger('McpSessions');

  constructor(
    private readonly globalGuards: GlobalGuards,
    private readonly registry: McpOperationRegistry,
    private readonly resourceServer: ResourceServer,
    @Inject(SESSION_OPTIONS) private readonly options: SessionOptions,
  ) {}

  /** Says at startup when sessions cannot learn their caller the way the operations do. */
  onApplicationBootstrap(): void {
    this.registry.whenExplored(() => this.warnIfOnlyOperationsAuthenticate());
  }

  /**
   * Sessions learn their caller from global guards, the resource server or middleware. An app
   * whose only guards sit on operations (class or method guards) authenticates each call, but its
   * sessions are then told apart by client address only: said once, with the fix.
   */
  private warnIfOnlyOperationsAuthenticate(): void {
    if (this.globalGuards.present || this.resourceServer.enabled || !this.options.enabled) return;
    const guarded = [...this.registry.getTools(), ...this.registry.getPrompts()].filter(
      (operation) => operation.guardsHandler !== undefined,
    );
    if (guarded.length === 0) return;
    this.logger.warn(
      `2025-era sessions are owned by the caller your global guards, the built-in resource server ` +
        `or your middleware name, but ${guarded.length} operation(s) (such as ${guarded[0].name}) ` +
        'are guarded only by class or method guards, which run for each call: sessions are then ' +
        'told apart by client address alone. If those guards authenticate, make the authenticating ' +
        'guard global (APP_GUARD), or authenticate in middleware that sets req.user.',
    );
  }

  /**
   * Runs the global guards for a session request of `method`: the operation context they left
   * (the caller's principal on the request), or the error a call would answer (a 401 challenge, a
   * 403, a 429) thrown.
   */
  authenticate(
    http: CallHttp,
    method: string,
    params: Readonly<Record<string, unknown>>,
  ): Promise<McpOperationContext> {
    const sdk = {
      mcpReq: { id: 0, method, _meta: {}, envelope: {}, signal: NEVER, notify: async () => {} },
    } as unknown as ServerContext;
    return this.globalGuards.authorize(method, sdk, http, params);
  }
}
