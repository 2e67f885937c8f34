import { MCP_SEMCONV, OWN_ATTRIBUTES } from './mcp-semantic-conventions';
import type { ObservedCall } from './observed-call';
import type { ObservedRequest } from './observed-request';

/**
 * Span or metric attributes as the module writes them: OpenTelemetry's `Attributes` accept them,
 * and the published declarations need not name the optional peer.
 * @internal
 */
export type AttributeMap = Record<string, string | number | boolean>;

/** @internal */
export function spanName(call: ObservedCall): string {
  return call.kind === 'resource' ? call.method : `${call.method} ${call.target}`;
}

/** @internal */
export function targetAttributes(call: ObservedCall): AttributeMap {
  switch (call.kind) {
    case 'tool':
      return { [MCP_SEMCONV.toolName]: call.target };
    case 'prompt':
      return { [MCP_SEMCONV.promptName]: call.target };
    default:
      return {};
  }
}

/** @internal */
export function startAttributes(call: ObservedCall): AttributeMap {
  const attributes: AttributeMap = {
    [MCP_SEMCONV.methodName]: call.method,
    [MCP_SEMCONV.requestId]: String(call.requestId),
    [MCP_SEMCONV.networkTransport]: 'tcp',
    ...targetAttributes(call),
  };
  if (call.kind === 'tool') attributes[MCP_SEMCONV.operationName] = 'execute_tool';
  if (call.kind === 'resource') attributes[MCP_SEMCONV.resourceUri] = call.target;
  if (call.protocolVersion !== undefined)
    attributes[MCP_SEMCONV.protocolVersion] = call.protocolVersion;
  if (call.sessionId !== undefined) attributes[MCP_SEMCONV.sessionId] = call.sessionId;
  if (call.clientAddress !== undefined) attributes[MCP_SEMCONV.clientAddress] = call.clientAddress;
  if (call.taskStep) attributes[OWN_ATTRIBUTES.taskId] = call.taskStep.taskId;
  return attributes;
}

/** @internal */
export function requestAttributes(request: ObservedRequest): AttributeMap {
  const attributes: AttributeMap = {
    [MCP_SEMCONV.methodName]: request.method,
    [MCP_SEMCONV.networkTransport]: 'tcp',
  };
  if (request.requestId !== undefined)
    attributes[MCP_SEMCONV.requestId] = String(request.requestId);
  if (request.protocolVersion !== undefined)
    attributes[MCP_SEMCONV.protocolVersion] = request.protocolVersion;
  if (request.sessionId !== undefined) attributes[MCP_SEMCONV.sessionId] = request.sessionId;
  if (request.clientAddress !== undefined)
    attributes[MCP_SEMCONV.clientAddress] = request.clientAddress;
  return attributes;
}
