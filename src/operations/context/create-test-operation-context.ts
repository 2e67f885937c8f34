import type { AuthInfo, ClientCapabilities, ServerContext } from '@modelcontextprotocol/server';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { McpJsonValue } from '../../kit/json-value';
import type { McpInputResponse } from '../../input/mcp-input-response';
import { McpInputResponses } from '../../input/mcp-input-responses';
import type { McpLogLevel, McpOperationContext } from '../../input/mcp-operation-context.interface';
import { MCP_PROTOCOL_VERSION } from '../../kit/mcp.constants';
import type { McpInputRequest } from '../../input/mcp-input-request';
import { replayAsks } from '../../request-state/replay/replay-asks.factory';
import { slotKey } from '../../request-state/replay/replay-ledger';
import { ReplayPendingSignal } from '../../request-state/replay/replay-pending.signal';

/** What a unit test may set on a {@link createTestOperationContext} context. @publicApi */
export interface TestOperationContextOptions {
  /** Default `tools/call`. */
  method?: string;
  /** Tool or prompt name or resource URI. Default `test`. */
  target?: string;
  /** Default `1`. */
  requestId?: string | number;
  /** Default `'test-flow'`. */
  flowId?: string;
  /** Default: form and URL elicitation, sampling with tools, roots. */
  clientCapabilities?: ClientCapabilities;
  /** This round's answers, by key. */
  inputResponses?: Record<string, McpInputResponse>;
  /** The opened framework state of this round. */
  frameworkState?: McpJsonValue;
  /** The application state of this round. */
  applicationState?: string;
  headers?: IncomingHttpHeaders;
  /** What `req.user` holds (the principal your guards set). */
  user?: unknown;
  authInfo?: AuthInfo;
  /** Aborts the call when aborted. */
  signal?: AbortSignal;
  /**
   * Answers to `ctx.elicit()`, `ctx.createMessage()`, … in the order the handler asks: the Nth ask
   * gets the Nth answer; an ask past the end rejects, as an unanswered ask ends a round.
   */
  replayAnswers?: McpInputResponse[];
  /** Runs the call as this task (`ctx.task.id`); `start()` does nothing. Default: not a task. */
  taskId?: string;
}

/** A request context for unit tests, recording what the handler reported and logged. @publicApi */
export interface TestOperationContext extends McpOperationContext {
  readonly progressReports: { progress: number; total?: number; message?: string }[];
  readonly logEntries: { level: McpLogLevel; data: unknown; logger?: string }[];
  /** What the handler asked with `ctx.elicit()` and friends, in order, answered or not. */
  readonly asked: McpInputRequest[];
}

const ALL_CAPABILITIES: ClientCapabilities = {
  elicitation: { form: {}, url: {} },
  sampling: { tools: {} },
  roots: {},
} as ClientCapabilities;

/**
 * Builds an {@link McpOperationContext} for unit-testing an operation method without a server:
 * pass it where the method takes `@McpContext()`. Progress reports and log entries are
 * recorded on the returned object instead of being sent; `sdk` is not available.
 *
 * @example
 * ```ts
 * const ctx = createTestOperationContext({
 *   frameworkState: { asked: true },
 *   inputResponses: { confirm: { kind: 'elicitation', action: 'accept', content: { confirm: true } } },
 * });
 * await expect(tools.deleteFile({ path: 'a.txt' }, ctx)).resolves.toBe('Deleted a.txt');
 * ```
 * @publicApi
 */
export function createTestOperationContext(
  options: TestOperationContextOptions = {},
): TestOperationContext {
  const progressReports: TestOperationContext['progressReports'] = [];
  const logEntries: TestOperationContext['logEntries'] = [];
  const request = { headers: options.headers ?? {}, user: options.user, auth: options.authInfo };
  const responses = options.inputResponses ?? {};
  const asked: McpInputRequest[] = [];
  const answers = options.replayAnswers ?? [];
  const scripted = {
    ask(inputRequest: McpInputRequest) {
      const index = asked.push(inputRequest) - 1;
      const answer = answers[index];
      if (answer === undefined) {
        const pending = Promise.reject(new ReplayPendingSignal());
        pending.catch(() => undefined);
        return pending;
      }
      return Promise.resolve({ key: slotKey(index), answer });
    },
  };
  return {
    requestId: options.requestId ?? 1,
    flowId: options.flowId ?? 'test-flow',
    method: options.method ?? 'tools/call',
    target: options.target ?? 'test',
    protocolVersion: MCP_PROTOCOL_VERSION,
    clientInfo: { name: 'test-client', version: '0.0.0' },
    clientCapabilities: options.clientCapabilities ?? ALL_CAPABILITIES,
    meta: {},
    signal: options.signal ?? new AbortController().signal,
    progress: {
      enabled: true,
      async report(progress, total, message) {
        progressReports.push({ progress, total, message });
      },
    },
    logger: {
      async log(level, data, logger) {
        logEntries.push({ level, data, logger });
      },
    },
    http: {
      request,
      raw: request as unknown as IncomingMessage,
      authInfo: options.authInfo,
    },
    inputResponses: McpInputResponses.from(responses, Object.keys(responses)),
    requestState: {
      application: options.applicationState,
      framework<T = McpJsonValue>() {
        return options.frameworkState as T | undefined;
      },
    },
    task:
      options.taskId === undefined
        ? undefined
        : { id: options.taskId, start: () => Promise.resolve() },
    get sdk(): ServerContext {
      throw new Error(
        'createTestOperationContext(): the SDK context is not available in unit tests',
      );
    },
    ...replayAsks(() => scripted),
    progressReports,
    logEntries,
    asked,
  };
}
