import { ProtocolError, type ServerContext } from '@modelcontextprotocol/server';
import type { McpTelemetry } from '../../observability/mcp-telemetry.service';
import type { ObservedRequest } from '../../observability/observed-request';
import type { CallHttp } from '../../pipeline/operation-call';
import { McpServedRequests } from './served-requests';
import { observedRequestOf } from './served-request';

const HTTP = {
  request: { headers: { traceparent: 'tp' }, ip: '10.0.0.7' },
  raw: {},
  response: {},
} as unknown as CallHttp;

function sdkOf(extra: Record<string, unknown> = {}): ServerContext {
  return {
    ...extra,
    mcpReq: {
      id: 4,
      method: 'tools/list',
      _meta: { traceparent: 'from-meta' },
      envelope: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' },
    },
  } as unknown as ServerContext;
}

/** A telemetry that records what it was asked to observe. */
function telemetryOf(observing: boolean) {
  const begun: ObservedRequest[] = [];
  const ended: (string | undefined)[] = [];
  const telemetry = {
    observing: () => observing,
    beginRequest(request: ObservedRequest) {
      begun.push(request);
      return {
        within: <T>(work: () => Promise<T>) => work(),
        end: (errorType?: string) => ended.push(errorType),
      };
    },
  } as unknown as McpTelemetry;
  return { telemetry, begun, ended };
}

function dispatcherWith(telemetry: McpTelemetry): McpServedRequests {
  return new McpServedRequests(telemetry);
}

describe('McpServedRequests.served', () => {
  it('only runs the request when nothing observes: no span begun, the value as it is', () => {
    const { telemetry, begun } = telemetryOf(false);
    const page = { items: [] };
    expect(dispatcherWith(telemetry).served('tools/list', sdkOf(), HTTP, () => page)).toBe(page);
    expect(begun).toHaveLength(0);
  });

  it('observes the request when something does, and ends it with the JSON-RPC code it failed with', async () => {
    const { telemetry, begun, ended } = telemetryOf(true);
    const dispatcher = dispatcherWith(telemetry);
    await expect(dispatcher.served('ping', sdkOf(), HTTP, () => ({}))).resolves.toEqual({});
    await expect(
      dispatcher.served('tasks/get', sdkOf(), HTTP, () => {
        throw new ProtocolError(-32602, 'Invalid params');
      }),
    ).rejects.toThrow('Invalid params');
    await expect(
      dispatcher.served('tasks/list', sdkOf(), HTTP, () => Promise.reject(new Error('boom'))),
    ).rejects.toThrow('boom');
    expect(begun.map((request) => request.method)).toEqual(['ping', 'tasks/get', 'tasks/list']);
    expect(ended).toEqual([undefined, '-32602', '-32603']);
  });
});

describe('observedRequestOf', () => {
  it("takes the id, version, _meta and caller's address from the request; a session id only from a session's context", () => {
    expect(observedRequestOf('tools/list', sdkOf(), HTTP)).toEqual({
      method: 'tools/list',
      requestId: 4,
      protocolVersion: '2026-07-28',
      sessionId: undefined,
      meta: { traceparent: 'from-meta' },
      headers: { traceparent: 'tp' },
      clientAddress: '10.0.0.7',
    });
    expect(observedRequestOf('ping', sdkOf({ sessionId: 's-1' }), HTTP).sessionId).toBe('s-1');
  });
});
