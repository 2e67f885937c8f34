import type { AuthInfo, ClientCapabilities, ServerContext } from '@modelcontextprotocol/server';
import { MCP_META_KEYS } from '../util/mcp.constants';
import type {
  McpLogLevel,
  McpProgressReporter,
  McpRequestContext,
  McpRequestLogger,
} from '../interfaces/mcp-request-context.interface';
import type { McpJsonValue } from '../util/json-value';
import { replayAsks } from '../replay/replay-asks.factory';
import type { HttpExchange } from './http-exchange.storage';
import type { McpOperationCall } from './mcp-operation-call';
import type { McpTaskContext } from '../interfaces/mcp-task-context.interface';

/** What a call running as (or possibly becoming) a task sees instead of its request's own. */
export interface TaskCallScope {
  readonly task: McpTaskContext;
  readonly signal: AbortSignal;
  readonly progress?: McpProgressReporter;
}

const LOG_LEVELS: McpLogLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

type Envelope = Record<string, unknown>;

function envelopeOf(sdk: ServerContext): Envelope {
  // The SDK's public envelope type hides the wire members, so it is read structurally.
  return (sdk.mcpReq.envelope ?? {}) as Envelope;
}

/** Progress on the request's own response stream, when the request carried a `progressToken`. */
export function progressReporter(sdk: ServerContext): McpProgressReporter {
  const token = (sdk.mcpReq._meta as { progressToken?: string | number } | undefined)
    ?.progressToken;
  return {
    enabled: token !== undefined,
    async report(progress, total, message) {
      if (token === undefined) return;
      const params: Record<string, unknown> = { progressToken: token, progress };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      await sdk.mcpReq.notify({ method: 'notifications/progress', params });
    },
  };
}

function requestLogger(sdk: ServerContext, envelope: Envelope): McpRequestLogger {
  const requested = (envelope[MCP_META_KEYS.logLevel] ??
    (sdk.mcpReq._meta as Envelope | undefined)?.[MCP_META_KEYS.logLevel]) as
    McpLogLevel | undefined;
  const threshold = requested === undefined ? -1 : LOG_LEVELS.indexOf(requested);
  return {
    async log(level, data, logger) {
      if (threshold < 0 || LOG_LEVELS.indexOf(level) < threshold) return;
      const params: Record<string, unknown> = { level, data };
      if (logger !== undefined) params.logger = logger;
      await sdk.mcpReq.notify({ method: 'notifications/message', params });
    },
  };
}

/** Builds the {@link McpRequestContext} an operation receives; `call` carries its input and state. */
export function createRequestContext(
  sdk: ServerContext,
  target: string,
  exchange: HttpExchange,
  call: McpOperationCall,
  taskScope?: TaskCallScope,
): McpRequestContext {
  const envelope = envelopeOf(sdk);
  const requestAuth = (exchange.request.auth ?? (exchange.raw as { auth?: AuthInfo }).auth) as
    AuthInfo | undefined;
  const meta = { ...((sdk.mcpReq._meta ?? {}) as Record<string, unknown>) };
  for (const key of Object.values(MCP_META_KEYS)) delete meta[key];
  const context: McpRequestContext = {
    requestId: sdk.mcpReq.id,
    method: sdk.mcpReq.method,
    target,
    protocolVersion: envelope[MCP_META_KEYS.protocolVersion] as string | undefined,
    clientInfo: envelope[MCP_META_KEYS.clientInfo] as McpRequestContext['clientInfo'],
    clientCapabilities: (envelope[MCP_META_KEYS.clientCapabilities] ?? {}) as ClientCapabilities,
    meta,
    signal: taskScope?.signal ?? sdk.mcpReq.signal,
    progress: taskScope?.progress ?? progressReporter(sdk),
    logger: requestLogger(sdk, envelope),
    http: {
      request: exchange.request,
      raw: exchange.raw,
      authInfo: sdk.http?.authInfo ?? requestAuth,
    },
    get inputResponses() {
      return call.responses;
    },
    requestState: {
      get application() {
        return call.applicationState;
      },
      framework<T = McpJsonValue>() {
        return call.frameworkState as T | undefined;
      },
    },
    task: taskScope?.task,
    sdk,
    ...replayAsks(() => call.replay),
  };
  return context;
}
