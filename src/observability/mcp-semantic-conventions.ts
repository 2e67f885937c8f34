/**
 * Attribute and instrument names of the OpenTelemetry MCP semantic conventions (Development status,
 * now in the GenAI conventions), as literals: the npm constants are deprecated and their successor
 * is not published. Ours are under {@link OWN_PREFIX}.
 * @internal
 */
export const MCP_SEMCONV = {
  methodName: 'mcp.method.name',
  protocolVersion: 'mcp.protocol.version',
  resourceUri: 'mcp.resource.uri',
  errorType: 'error.type',
  toolName: 'gen_ai.tool.name',
  promptName: 'gen_ai.prompt.name',
  operationName: 'gen_ai.operation.name',
  requestId: 'jsonrpc.request.id',
  responseStatusCode: 'rpc.response.status_code',
  networkTransport: 'network.transport',
  clientAddress: 'client.address',
  sessionId: 'mcp.session.id',
  operationDuration: 'mcp.server.operation.duration',
  sessionDuration: 'mcp.server.session.duration',
} as const;

/**
 * Bucket boundaries of `mcp.server.operation.duration` (and `mcp.server.session.duration`), in
 * seconds, as the conventions advise.
 * @internal
 */
export const OPERATION_DURATION_BUCKETS = [
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
];

/** Prefix of this module's own attributes and instruments. @internal */
export const OWN_PREFIX = 'nestjs_mcp.';

/**
 * This module's own attributes (docs/operations.md). Never contents, answers, arguments or keys.
 * @internal
 */
export const OWN_ATTRIBUTES = {
  flowId: 'nestjs_mcp.flow.id',
  round: 'nestjs_mcp.round',
  outcome: 'nestjs_mcp.outcome',
  rejectionReason: 'nestjs_mcp.rejection.reason',
  rejectionField: 'nestjs_mcp.rejection.field',
  taskId: 'nestjs_mcp.task.id',
  taskStatus: 'nestjs_mcp.task.status',
  link: 'nestjs_mcp.link',
  inputOutcome: 'nestjs_mcp.input.outcome',
  auditSink: 'nestjs_mcp.audit.sink',
  auditReason: 'nestjs_mcp.audit.reason',
} as const;

/** This module's own instruments (docs/operations.md). @internal */
export const OWN_INSTRUMENTS = {
  flowsStarted: 'nestjs_mcp.flows.started',
  flowsCompleted: 'nestjs_mcp.flows.completed',
  flowsDeclined: 'nestjs_mcp.flows.declined',
  flowsCancelled: 'nestjs_mcp.flows.cancelled',
  flowsRejected: 'nestjs_mcp.flows.rejected',
  flowsExpired: 'nestjs_mcp.flows.expired',
  flowRounds: 'nestjs_mcp.flow.rounds',
  tasks: 'nestjs_mcp.tasks',
  auditRecordsDropped: 'nestjs_mcp.audit.records.dropped',
} as const;
