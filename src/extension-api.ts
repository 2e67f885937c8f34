// The core's one door for extensions (src/ext/**): everything an extension may use of the core
// besides the kit (src/kit/), re-exported here and nowhere else. The dependency rule
// (.dependency-cruiser.cjs) lets an extension import only this file, the kit and the extensions it
// declares in `dependsOn`; the core never imports this file. Add a name when an extension needs
// one, and say in docs/architecture.md which seam it belongs to.
// Each line is tagged internal, so the shipped declarations (stripInternal) hold none of it, but
// for the names the package's faces export (the built-in extensions' public declarations reach
// them through here). An application's own extension uses `nestjs-mcp/extension` instead.

/** @internal */
export { boundKeyOf } from './auth/access-token-claims';
/** @internal */
export { AUTH_OPTIONS, type AuthOptions } from './auth/auth.options';
export { ANONYMOUS_PARTITION } from './auth/identity/authorization-partition.resolver';
/** @internal */
export { CallerPartitions } from './auth/identity/caller-partitions';
/** @internal */
export { detachedStepHttp } from './auth/identity/detached-task-step';
/** @internal */
export { captureTaskPrincipal, type TaskPrincipal } from './auth/identity/task-principal';
/** @internal */
export { ProtectedResource } from './auth/protected-resource';
/** @internal */
export { ResourceServer } from './auth/resource-server';
/** @internal */
export { parseInputResponse } from './input/input-response.parser';
export type { McpInputResponse } from './input/mcp-input-response';
/** @internal */
export type { McpHttpRequest } from './input/mcp-operation-context.interface';
export type { McpOperationContext } from './input/mcp-operation-context.interface';
export { McpRequestStateMode } from './input/mcp-request-state-mode.enum';
/** @internal */
export type { McpTaskContext } from './input/mcp-task-context.interface';
/** @internal */
export type { Pkcs11Api } from './keyring/pkcs11/pkcs11-binding';
/** @internal */
export { findTokenObjects } from './keyring/pkcs11/pkcs11-objects';
/** @internal */
export { Pkcs11Token } from './keyring/pkcs11/pkcs11-token';
/** @internal */
export { KeyringRecordIntegrity, type RecordIntegrity } from './keyring/record-integrity';
/** @internal */
export { McpTelemetry } from './observability/mcp-telemetry.service';
/** @internal */
export type { ObservedCall } from './observability/observed-call';
/** @internal */
export type {
  ClientRequestOutcome,
  ObservedClientRequest,
  ObservedRequest,
  RequestEnd,
} from './observability/observed-request';
/** @internal */
export type {
  McpTaskCreation,
  McpTaskSupport,
} from './operations/decorators/mcp-operation-options.interface';
/** @internal */
export { discoveredMethods } from './operations/discovery/discovered-methods';
/** @internal */
export { DISCOVERY_OPTIONS, type DiscoveryOptions } from './operations/discovery/discovery.options';
/** @internal */
export { McpExtensionMarks, type McpExtensionMark } from './operations/discovery/extension-marks';
/** @internal */
export type { ContributedResource } from './operations/discovery/listed-resources';
export { McpListedResources, unguardedResource } from './operations/discovery/listed-resources';
/** @internal */
export { listResultOf, type ListKind } from './operations/discovery/listing-page';
/** @internal */
export { McpOperationRegistry } from './operations/discovery/mcp-operation.registry';
/** @internal */
export { McpExplorer } from './operations/discovery/mcp.explorer';
/** @internal */
export type { ToolEntry } from './operations/discovery/operation-entry.interface';
/** @internal */
export { scopesOf } from './operations/discovery/operation-profile';
/** @internal */
export { PagedListing } from './operations/discovery/paged-listing';
/** @internal */
export { TOOL_TASK_SUPPORT, type ToolTaskSupport } from './operations/discovery/tool-task-support';
/** @internal */
export type {
  McpCallEvent,
  McpCallStart,
  McpCoreEvent,
  McpKeyringEvent,
  McpRefusalReason,
  McpSessionChangeEvent,
  McpSkillServedEvent,
  McpTaskChangeEvent,
} from './options/mcp-core-event';
/** @internal */
export { McpCoreEvents, type McpCoreEventObserver } from './options/mcp-core-events';
export { configured, defineMcpExtension, type McpExtension } from './options/mcp-extension';
/** @internal */
export { McpPorts } from './options/mcp-ports.service';
/** @internal */
export {
  booleanOption,
  implementing,
  integersWithin,
  objectOption,
  positiveInteger,
  positiveIntegers,
  type IntegerBounds,
} from './options/option-checks';
export { portProvider } from './options/port.provider';
/** @internal */
export type { Port } from './options/port';
export { port } from './options/port';
/** @internal */
export { envelopeContext } from './pipeline/envelope-context';
/** @internal */
export { nextRoundInput } from './pipeline/next-round-input';
/** @internal */
export { GlobalGuards } from './pipeline/global-guards';
/** @internal */
export type { HttpExchange } from './pipeline/http-exchange';
/** @internal */
export { noStepsProfile } from './pipeline/no-steps-profile';
/** @internal */
export type { CallHttp, OperationCallProfile } from './pipeline/operation-call';
/** @internal */
export { createOperationContext, progressReporter } from './pipeline/operation-context.factory';
/** @internal */
export { OperationPipelineFactory } from './pipeline/operation-pipeline.factory';
/** @internal */
export { normalizeToolResult } from './pipeline/operation-result.normalizer';
/** @internal */
export {
  OperationRunner,
  answerOf,
  type OperationOutcome,
  type OperationRunInput,
  type RunnableOperation,
} from './pipeline/operation-runner';
/** @internal */
export { OPERATION_SCOPES_GUARD } from './pipeline/operation-scopes.guard';
/** @internal */
export { callParamsOf, ownArguments, ownRequestParams } from './pipeline/own-request-params';
/** @internal */
export { loggableFailure } from './redis/bounded-redis-command';
/** @internal */
export { adapterKeyPrefix } from './redis/cluster-key-prefix';
/** @internal */
export { duplicateConnection } from './redis/duplicate-connection';
export type { McpRedisClient } from './redis/mcp-redis-client';
/** @internal */
export { McpRedisConnection } from './redis/mcp-redis.connection';
/** @internal */
export { OutageLog } from './redis/outage-log';
/** @internal */
export { DEADLINE_LUA, RedisClock } from './redis/redis-clock';
/** @internal */
export { outageOf } from './redis/redis-outage';
/** @internal */
export { redisScript, runRedisScript } from './redis/redis-script';
/** @internal */
export { newFlowId } from './request-state/sealing/sealed-flow';
/** @internal */
export { CONSUMED_STATE_STORE_PORT } from './request-state/stores/one-time/consumed-state-store.interface';
export { ConsumedStateStore } from './request-state/stores/one-time/consumed-state-store.interface';
/** @internal */
export { CHANGE_CHANNEL, type ChangeEvent } from './wire/fleet/change-channel';
/** @internal */
export { FleetBus } from './wire/fleet/fleet-bus';
/** @internal */
export { fleetChannel } from './wire/fleet/fleet-channel';
/** @internal */
export { McpEndpointRoutes, type LegacyHttpExchange } from './wire/http/endpoint-routes';
/** @internal */
export { McpListenRoutes, type McpListenRoute } from './wire/listen/listen-routes';
export { McpNotifier } from './wire/listen/mcp-notifier.service';
/** @internal */
export { StreamFanOut, withinBacklog } from './wire/listen/stream-fan-out';
/** @internal */
export { DivertedCall, McpCallDiverts } from './wire/protocol/call-divert';
/** @internal */
export { McpDispatcher, type OperationRun } from './wire/protocol/mcp-dispatcher.service';
/** @internal */
export type { McpMethodParams } from './wire/protocol/method-table';
export { McpMethodTable } from './wire/protocol/method-table';
/** @internal */
export { McpOperationVisibility } from './wire/protocol/operation-visibility';
export { McpResourceReaders } from './wire/protocol/resource-readers';
/** @internal */
export { OPERATION_METHODS, observedRequestOf } from './wire/protocol/served-request';
/** @internal */
export { McpServedRequests } from './wire/protocol/served-requests';
export { McpServerCapabilities } from './wire/protocol/server-capabilities';
/** @internal */
export { SERVER_OPTIONS, type ServerOptions } from './wire/protocol/server.options';
