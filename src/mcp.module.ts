import { McpDrain } from './wire/drain/mcp-drain.service';
import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { McpExplorer } from './operations/discovery/mcp.explorer';
import { McpExtensionMarks } from './operations/discovery/extension-marks';
import { McpListedResources } from './operations/discovery/listed-resources';
import { McpListings } from './operations/discovery/mcp-listings.service';
import { McpOperationRegistry } from './operations/discovery/mcp-operation.registry';
import { OperationEntryFactory } from './operations/discovery/operation-entry.factory';
import { McpRuntimeOperations } from './operations/runtime/mcp-runtime-operations.service';
import { McpStateHandles } from './operations/handles/mcp-state-handles.service';
import { CallerPartitions } from './auth/identity/caller-partitions';
import { KeyringManager } from './keyring/keyring-manager.service';
import { KeyringManagerProvider } from './keyring/keyring-manager.provider';
import { KeyringFleetProvider } from './keyring/fleet/keyring-fleet.provider';
import { KeyringRecordIntegrity } from './keyring/record-integrity';
import { McpConfigurableModuleClass } from './mcp.module-definition';
import { MCP_OPTION_PROVIDERS } from './mcp.providers';
import { CapabilityGatingInterceptor } from './pipeline/capability-gating.interceptor';
import { GlobalGuards } from './pipeline/global-guards';
import { OperationRunner } from './pipeline/operation-runner';
import { McpFlowEvents } from './observability/mcp-flow-events.service';
import { McpTelemetry } from './observability/mcp-telemetry.service';
import { McpCoreEvents } from './options/mcp-core-events';
import { StateProtectionInterceptor } from './pipeline/state-protection.interceptor';
import { McpDispatcher } from './wire/protocol/mcp-dispatcher.service';
import { McpServedRequests } from './wire/protocol/served-requests';
import { McpOperationVisibility } from './wire/protocol/operation-visibility';
import { SdkServerFactory } from './wire/protocol/sdk-server.factory';
import { McpRedisConnection } from './redis/mcp-redis.connection';
import { McpReplayStep } from './request-state/replay/mcp-replay.step';
import { FleetBusProvider } from './wire/fleet/fleet-bus.provider';
import { McpCallDiverts } from './wire/protocol/call-divert';
import { McpMethodTable } from './wire/protocol/method-table';
import { McpResourceReaders } from './wire/protocol/resource-readers';
import { McpServerCapabilities } from './wire/protocol/server-capabilities';
import { McpEndpointRoutes } from './wire/http/endpoint-routes';
import { McpListenRoutes } from './wire/listen/listen-routes';
import { McpHttpEndpoint } from './wire/http/mcp-http-endpoint.service';
import { ListenEndpoint } from './wire/listen/listen-endpoint';
import { ListenStreams } from './wire/listen/listen-streams';
import { McpNotifier } from './wire/listen/mcp-notifier.service';
import { SdkHandlers } from './wire/http/sdk-handlers';
import { AnonymousAccess } from './wire/http/anonymous-access';
import { ENDPOINT_STAGE_PROVIDERS } from './wire/http/endpoint-stages.provider';

/**
 * Serves the application's `@McpTool`, `@McpPrompt` and `@McpResource` methods as an MCP
 * 2026-07-28 server at `options.endpoint` (default `/mcp`), on Express or Fastify, with declared
 * input requests, sealed request state and a rotating keyring. Global by default, so any module
 * can inject `KeyringManager`, `McpNotifier`, `McpRuntimeOperations`, `McpStateHandles` and
 * `McpFlowEvents`; pass `isGlobal: false` to scope it.
 *
 * @example
 * ```ts
 * @Module({
 *   imports: [McpModule.forRoot({ serverInfo: { name: 'orders', version: '1.0.0' }, keyring })],
 *   providers: [OrderTools],
 * })
 * export class AppModule {}
 * ```
 * @publicApi
 */
@Module({
  imports: [DiscoveryModule],
  providers: [
    ...MCP_OPTION_PROVIDERS,
    KeyringManagerProvider,
    KeyringRecordIntegrity,
    KeyringFleetProvider,
    McpRedisConnection,
    CallerPartitions,
    McpStateHandles,
    // The pipeline
    CapabilityGatingInterceptor,
    StateProtectionInterceptor,
    McpReplayStep,
    OperationRunner,
    GlobalGuards,
    McpTelemetry,
    McpFlowEvents,
    McpCoreEvents,
    McpOperationRegistry,
    McpListings,
    OperationEntryFactory,
    McpExplorer,
    McpRuntimeOperations,
    // The fleet's events
    FleetBusProvider,
    // The seams extensions install themselves into (tasks, 2025-era sessions, skills: mcp.module-definition.ts)
    McpMethodTable,
    McpCallDiverts,
    McpServerCapabilities,
    McpListedResources,
    McpResourceReaders,
    McpExtensionMarks,
    McpListenRoutes,
    McpEndpointRoutes,
    // The wire
    McpDispatcher,
    McpServedRequests,
    McpOperationVisibility,
    SdkServerFactory,
    SdkHandlers,
    ListenEndpoint,
    ListenStreams,
    ...ENDPOINT_STAGE_PROVIDERS,
    AnonymousAccess,
    McpHttpEndpoint,
    McpNotifier,
    // The lifecycle
    McpDrain,
  ],
  // CallerPartitions: for McpThrottlerGuard (nestjs-mcp/throttler), which an app provides itself.
  exports: [
    KeyringManager,
    McpNotifier,
    McpRuntimeOperations,
    McpStateHandles,
    CallerPartitions,
    McpFlowEvents,
  ],
})
export class McpModule extends McpConfigurableModuleClass {}
