import type { AuthInfo, ClientCapabilities, ServerContext } from '@modelcontextprotocol/server';
import { MCP_META_KEYS } from '../kit/mcp.constants';
import type {
  McpLogLevel,
  McpProgressReporter,
  McpOperationContext,
  McpRequestLogger,
} from '../input/mcp-operation-context.interface';
import { McpInputResponses } from '../input/mcp-input-responses';
import type { McpJsonValue } from '../kit/json-value';
import { replayAsks } from '../request-state/replay/replay-asks.factory';
import type { ReplayExecution } from '../request-state/replay/replay-execution';
import { newFlowId } from '../request-state/sealing/sealed-flow';
import type { CallHttp, TaskCallScope } from './operation-call';

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

const NO_STATE: McpOperationContext['requestState'] = Object.freeze({
  application: undefined,
  framework: () => undefined,
});

/** The asks of a call that is not a replay round (yet): each throws `ReplayUnavailableError`. */
const NO_ASKS = Object.freeze(replayAsks(() => undefined));

function envelopeOf(sdk: ServerContext): Envelope {
  // The SDK's public envelope type hides the wire members, so it is read structurally.
  return (sdk.mcpReq.envelope ?? {}) as Envelope;
}

/** The reporter of a request without a `progressToken`: one for all of them. */
const NO_PROGRESS: McpProgressReporter = Object.freeze({
  enabled: false,
  report: () => Promise.resolve(),
});

/** The logger of a request that asked for no log level: one for all of them. */
const NO_LOGS: McpRequestLogger = Object.freeze({ log: () => Promise.resolve() });

/** The `_meta` keys of the envelope, which the operation's `meta` leaves out. */
const ENVELOPE_KEYS = new Set<string>(Object.values(MCP_META_KEYS));

/**
 * Progress on the request's own response stream, when the request carried a `progressToken`.
 * @internal
 */
export function progressReporter(sdk: ServerContext): McpProgressReporter {
  const token = (sdk.mcpReq._meta as { progressToken?: string | number } | undefined)
    ?.progressToken;
  if (token === undefined) return NO_PROGRESS;
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
  if (threshold < 0) return NO_LOGS;
  return {
    async log(level, data, logger) {
      if (LOG_LEVELS.indexOf(level) < threshold) return;
      const params: Record<string, unknown> = { level, data };
      if (logger !== undefined) params.logger = logger;
      await sdk.mcpReq.notify({ method: 'notifications/message', params });
    },
  };
}

/**
 * The context of a call as it arrives: who asks for what, on which request. It carries no answers
 * and no state (those exist only once state protection has opened the round, see
 * {@link openedOperationContext}), and its replay asks are unavailable.
 * @internal
 */
export function createOperationContext(
  sdk: ServerContext,
  target: string,
  http: CallHttp,
  taskScope: TaskCallScope | undefined,
): McpOperationContext {
  const envelope = envelopeOf(sdk);
  const requestAuth = (http.request.auth ?? (http.raw as { auth?: AuthInfo } | undefined)?.auth) as
    AuthInfo | undefined;
  // Copied without the envelope keys (deleting them would turn the object into a slow dictionary).
  const meta: Record<string, unknown> = {};
  const sent = (sdk.mcpReq._meta ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(sent)) if (!ENVELOPE_KEYS.has(key)) meta[key] = sent[key];
  return {
    requestId: sdk.mcpReq.id,
    flowId: taskScope?.flowId ?? newFlowId(),
    method: sdk.mcpReq.method,
    target,
    protocolVersion: envelope[MCP_META_KEYS.protocolVersion] as string | undefined,
    clientInfo: envelope[MCP_META_KEYS.clientInfo] as McpOperationContext['clientInfo'],
    clientCapabilities: (envelope[MCP_META_KEYS.clientCapabilities] ?? {}) as ClientCapabilities,
    meta,
    signal: taskScope?.signal ?? sdk.mcpReq.signal,
    progress: taskScope?.progress ?? progressReporter(sdk),
    logger: requestLogger(sdk, envelope),
    http: {
      request: http.request,
      raw: http.raw,
      authInfo: sdk.http?.authInfo ?? requestAuth,
    },
    inputResponses: McpInputResponses.empty(),
    requestState: NO_STATE,
    task: taskScope?.task,
    sdk,
    ...NO_ASKS,
  };
}

/** What an opened round adds to a call's context. @internal */
export interface OpenedValues {
  readonly responses: McpInputResponses;
  readonly applicationState: string | undefined;
  readonly frameworkState: McpJsonValue | undefined;
  readonly replay: ReplayExecution | undefined;
  /** The flow id sealed in the incoming state, when there was one. */
  readonly flowId: string | undefined;
}

/**
 * The context the method sees once its round is open: `base` with the answers, state and asks.
 * @internal
 */
export function openedOperationContext(
  base: McpOperationContext,
  opened: OpenedValues,
): McpOperationContext {
  const { applicationState, frameworkState, replay } = opened;
  return {
    ...base,
    flowId: opened.flowId ?? base.flowId,
    inputResponses: opened.responses,
    requestState:
      applicationState === undefined && frameworkState === undefined
        ? NO_STATE
        : {
            application: applicationState,
            framework<T = McpJsonValue>() {
              return frameworkState as T | undefined;
            },
          },
    ...(replay ? replayAsks(() => replay) : NO_ASKS),
  };
}
