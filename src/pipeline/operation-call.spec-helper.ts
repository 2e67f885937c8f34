import type { ServerContext } from '@modelcontextprotocol/server';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpOperationContext } from '../input/mcp-operation-context.interface';
import { MCP_META_KEYS, MCP_PROTOCOL_VERSION } from '../kit/mcp.constants';
import { noStepsProfile } from './no-steps-profile';
import { createOperationContext } from './operation-context.factory';
import { OperationCall, type CompletionRequest, type OperationCallProfile } from './operation-call';

/** What a unit test sets on {@link testOperationCall}. */
export interface TestOperationCallOptions {
  readonly purpose?: OperationCall['purpose'];
  readonly profile?: Partial<OperationCallProfile>;
  readonly target?: string;
  readonly params?: Record<string, unknown>;
  readonly args?: Record<string, unknown>;
  readonly context?: McpOperationContext;
  readonly completion?: CompletionRequest;
}

/** A call record for unit tests of the pipeline's steps, without a server. */
export function testOperationCall(options: TestOperationCallOptions = {}): OperationCall {
  const http = {
    request: { headers: {} },
    raw: { headers: {} } as unknown as IncomingMessage,
    response: {} as ServerResponse,
  };
  const sdk = {
    mcpReq: {
      id: 1,
      method: options.purpose === 'completion' ? 'completion/complete' : 'tools/call',
      _meta: {},
      envelope: {
        [MCP_META_KEYS.protocolVersion]: MCP_PROTOCOL_VERSION,
        [MCP_META_KEYS.clientCapabilities]: { elicitation: { form: {} }, roots: {} },
      },
      signal: new AbortController().signal,
      notify: async () => undefined,
    },
  } as unknown as ServerContext;
  const context =
    options.context ?? createOperationContext(sdk, options.target ?? 'test', http, undefined);
  const profile: OperationCallProfile = { ...noStepsProfile('tool'), ...options.profile };
  return new OperationCall({
    purpose: options.purpose ?? 'operation',
    profile,
    target: options.target ?? context.target,
    params: options.params ?? {},
    args: options.args ?? {},
    http,
    sdk,
    completion: options.completion,
    context,
  });
}

/** The handler arguments `(request, response, next, call)` an enhancer of `call` sees. */
export function handlerArgsOf(call: OperationCall): unknown[] {
  return [call.request, {}, undefined, call];
}
