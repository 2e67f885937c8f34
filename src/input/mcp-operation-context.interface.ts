import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { AuthInfo, ClientCapabilities, ServerContext } from '@modelcontextprotocol/server';
import type { McpJsonValue } from '../kit/json-value';
import type { McpInputResponses } from './mcp-input-responses';
import type { McpReplayAsks } from './mcp-replay-asks.interface';
import type { McpTaskContext } from './mcp-task-context.interface';

/** Log levels of `notifications/message`, lowest first. @publicApi */
export type McpLogLevel =
  'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/**
 * Sends `notifications/progress` on the request's own response stream. Does nothing when the
 * request carried no `progressToken`.
 *
 * @publicApi
 */
export interface McpProgressReporter {
  /** Whether the client asked for progress (sent a `progressToken`). */
  readonly enabled: boolean;
  report(progress: number, total?: number, message?: string): Promise<void>;
}

/**
 * Sends `notifications/message` on the request's own response stream, but only at or above the
 * level the request asked for in `_meta["io.modelcontextprotocol/logLevel"]`; otherwise nothing.
 *
 * @publicApi
 */
export interface McpRequestLogger {
  log(level: McpLogLevel, data: unknown, logger?: string): Promise<void>;
}

/**
 * The request state this round carries, verified. On a first round both are empty; on a retry only
 * the operation's declared mode can be present.
 *
 * @publicApi
 */
export interface McpRequestStateView {
  /** The exact string an `APPLICATION_PROTECTED` operation emitted last round. */
  readonly application: string | undefined;
  /** The JSON a `FRAMEWORK_PROTECTED` operation emitted last round, verified and opened. */
  framework<T = McpJsonValue>(): T | undefined;
}

/**
 * The HTTP request that carried an MCP request, as the host framework sees it: an Express `Request`
 * or a `FastifyRequest` (cast to the one your app uses). It is the same object
 * `context.switchToHttp().getRequest()` returns to guards and interceptors, so whatever your
 * middleware and guards set on it (`user`, `auth`, a request id) is there.
 *
 * @publicApi
 */
export interface McpHttpRequest {
  readonly headers: IncomingHttpHeaders;
  /** The principal set by passport-style guards or middleware. */
  readonly user?: unknown;
  /** OAuth token information set by bearer-auth middleware. */
  readonly auth?: AuthInfo;
  readonly ip?: string;
  readonly method?: string;
  readonly url?: string;
}

/**
 * Everything an operation may want to know about the MCP request it serves. Injected with
 * `@McpContext()`, or read from `McpExecutionContext.create(ctx).getOperationContext()`.
 * Operations with `replay: true` also ask through it (`ctx.elicit()`, …: {@link McpReplayAsks}).
 *
 * @publicApi
 */
export interface McpOperationContext extends McpReplayAsks {
  /** JSON-RPC id of this request (each retry round has its own). */
  readonly requestId: string | number;
  /**
   * The flow this call belongs to: minted on its first round and carried, sealed, in the
   * continuation (framework state, single-use state, replay ledger, task), so every round of one
   * input-required flow — on any instance — shows the same id. The module's log lines, spans and
   * events for the flow carry it. Your guards and interceptors see the id of a new flow on a retry
   * round (the state is opened after them); the method sees the flow's own.
   */
  readonly flowId: string;
  /** JSON-RPC method: `tools/call`, `prompts/get` or `resources/read`. */
  readonly method: string;
  /** Tool or prompt name, or resource URI. */
  readonly target: string;
  /** Protocol revision of the request's envelope. */
  readonly protocolVersion: string | undefined;
  /** The client's name and version, when it sent them. */
  readonly clientInfo: { name: string; version: string } | undefined;
  /** What the client declared it can do, for this request. */
  readonly clientCapabilities: ClientCapabilities;
  /** The request's `_meta`, without the protocol envelope keys. */
  readonly meta: Record<string, unknown>;
  /**
   * Aborted when the client goes away or cancels; in a task, when the task is cancelled (the
   * client going away does not stop a task).
   */
  readonly signal: AbortSignal;
  /** Progress of the call; in a task, recorded as the task's `statusMessage`. */
  readonly progress: McpProgressReporter;
  readonly logger: McpRequestLogger;
  /** The HTTP exchange that carried this MCP request. */
  readonly http: {
    /** The framework's request object: what `switchToHttp().getRequest()` returns. */
    readonly request: McpHttpRequest;
    /** The underlying Node request. */
    readonly raw: IncomingMessage;
    /** OAuth token information a preceding middleware set on `req.auth`. */
    readonly authInfo: AuthInfo | undefined;
  };
  /** This round's input responses (exact numbers, protocol shapes checked). */
  readonly inputResponses: McpInputResponses;
  /** This round's verified request state. */
  readonly requestState: McpRequestStateView;
  /** The task this call runs as or may become (tasks extension); `undefined` otherwise. */
  readonly task: McpTaskContext | undefined;
  /**
   * The SDK's own per-request context, for what this interface does not cover. On the fast path
   * (complete 2026-07-28 calls that stream nothing) it is a minimal one: `mcpReq.id`, `method`,
   * `_meta`, `envelope`, `signal`, and a `notify` that sends nothing; `http.authInfo` when set.
   */
  readonly sdk: ServerContext;
}
