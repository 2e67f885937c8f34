import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { ExternalContextCreator } from '@nestjs/core';
import type { ServerContext } from '@modelcontextprotocol/server';
import type { McpOperationContext } from '../../../interfaces/mcp-operation-context.interface';
import { McpRequestStateMode } from '../../../input/mcp-request-state-mode.enum';
import type { CallHttp } from '../../../pipeline/operation-call';
import { OperationPipelineFactory } from '../../../pipeline/operation-pipeline.factory';
import { OperationRunner, type RunnableOperation } from '../../../pipeline/operation-runner';

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
  private readonly pipelines: OperationPipelineFactory;
  private gate: RunnableOperation | undefined;

  constructor(
    contextCreator: ExternalContextCreator,
    private readonly runner: OperationRunner,
  ) {
    this.pipelines = new OperationPipelineFactory(contextCreator);
  }

  /** Built once the app's global guards are all registered (`useGlobalGuards` included). */
  onApplicationBootstrap(): void {
    this.gate = {
      profile: {
        kind: 'tool',
        declarations: [],
        stateMode: McpRequestStateMode.NONE,
        singleUse: false,
        replay: false,
        scopes: [],
        public: false,
        argumentsValidator: undefined,
      },
      handler: async () => undefined,
      guardsHandler: this.pipelines.forGuards(this, 'session'),
    };
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
    return this.runner.authorize({
      operation: this.gate ?? this.fallback(),
      target: method,
      params,
      args: {},
      http,
      sdk,
    });
  }

  /** The session requests' stand-in operation: it only carries the global guards. */
  session(): void {}

  private fallback(): RunnableOperation {
    this.onApplicationBootstrap();
    return this.gate as RunnableOperation;
  }
}
