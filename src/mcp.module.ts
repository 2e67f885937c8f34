import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { McpExplorer } from './discovery/mcp.explorer';
import { McpOperationRegistry } from './discovery/mcp-operation.registry';
import { CapabilityGate } from './pipeline/capability.gate';
import { McpInputStepsGuard } from './pipeline/mcp-input-steps.guard';
import { McpInputSteps } from './pipeline/mcp-input-steps.service';
import type { McpModuleOptions } from './mcp-module-options.interface';
import { KeyringManager } from './keyring/keyring-manager.service';
import { McpConfigurableModuleClass, MCP_MODULE_OPTIONS } from './mcp.module-definition';
import { resolveMcpOptions, type ResolvedMcpOptions } from './mcp-options.resolver';
import { MCP_RESOLVED_OPTIONS } from './mcp-resolved-options.token';
import { McpArgumentsValidationGuard } from './pipeline/mcp-arguments-validation.guard';
import { McpNotifier } from './transport/mcp-notifier.service';
import { PACKAGE_VERSION } from './util/package-version';
import { McpDispatcher } from './protocol/mcp-dispatcher.service';
import { McpServerFactory } from './protocol/mcp-server.factory';
import { McpRedisConnection } from './redis/mcp-redis.connection';
import { McpReplayStep } from './replay/mcp-replay.step';
import { RequestStateProtection } from './pipeline/request-state.protection';
import { ConsumedStateStoreDelegate } from './stores/one-time/consumed-state-store.delegate';
import { McpStateHandles } from './stores/handles/mcp-state-handles.service';
import { StateHandleRepositoryDelegate } from './stores/handles/state-handle-repository.delegate';
import { PartitionResolverDelegate } from './identity/partition-resolver.delegate';
import { RequestStateSealer } from './state/request-state.sealer';
import { StateProtectorDelegate } from './state/state-protector.delegate';
import { McpHttpEndpoint } from './transport/mcp-http-endpoint.service';
import { McpTasksService } from './tasks/mcp-tasks.service';
import { McpTaskCalls } from './tasks/mcp-task-calls.service';
import { McpTaskMethods } from './tasks/wire/mcp-task-methods.service';
import { TaskListenStreams } from './tasks/streams/task-listen-streams';
import { TaskEventBusProvider } from './tasks/events/task-event-bus.provider';
import { TaskStatusFeed } from './tasks/events/task-status-feed';
import { TaskStoreDelegate } from './tasks/store/task-store.delegate';

/**
 * Serves the application's `@McpTool`, `@McpPrompt` and `@McpResource` methods as an MCP
 * 2026-07-28 server at `options.endpoint` (default `/mcp`), on Express or Fastify, with declared
 * input requests, sealed request state and a rotating keyring. Global by default, so any module
 * can inject `KeyringManager`, `McpNotifier` and `McpStateHandles`; pass `isGlobal: false` to scope it.
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
    {
      provide: MCP_RESOLVED_OPTIONS,
      useFactory: (options: McpModuleOptions) => resolveMcpOptions(options, PACKAGE_VERSION),
      inject: [MCP_MODULE_OPTIONS],
    },
    KeyringManager,
    McpRedisConnection,
    StateProtectorDelegate,
    PartitionResolverDelegate,
    ConsumedStateStoreDelegate,
    StateHandleRepositoryDelegate,
    McpStateHandles,
    {
      provide: RequestStateSealer,
      useFactory: (options: ResolvedMcpOptions, protector: StateProtectorDelegate) =>
        new RequestStateSealer(options, protector),
      inject: [MCP_RESOLVED_OPTIONS, StateProtectorDelegate],
    },
    CapabilityGate,
    McpInputSteps,
    McpInputStepsGuard,
    McpArgumentsValidationGuard,
    RequestStateProtection,
    McpReplayStep,
    McpOperationRegistry,
    McpExplorer,
    TaskStoreDelegate,
    TaskEventBusProvider,
    TaskStatusFeed,
    McpTasksService,
    McpTaskCalls,
    McpTaskMethods,
    TaskListenStreams,
    McpDispatcher,
    McpServerFactory,
    McpHttpEndpoint,
    McpNotifier,
  ],
  exports: [KeyringManager, McpOperationRegistry, McpNotifier, McpStateHandles],
})
export class McpModule extends McpConfigurableModuleClass {}
