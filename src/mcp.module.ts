import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { McpExplorer } from './discovery/mcp.explorer';
import { McpOperationRegistry } from './discovery/mcp-operation.registry';
import { CapabilityGate } from './input/capability.gate';
import { McpInputStepsGuard } from './input/mcp-input-steps.guard';
import { McpInputSteps } from './input/mcp-input-steps.service';
import type { McpModuleOptions } from './interfaces/mcp-module-options.interface';
import { KeyringManager } from './keyring/keyring-manager.service';
import { McpConfigurableModuleClass, MCP_MODULE_OPTIONS } from './mcp.module-definition';
import { resolveMcpOptions, type ResolvedMcpOptions } from './mcp-options.resolver';
import { MCP_RESOLVED_OPTIONS } from './mcp-resolved-options.token';
import { McpArgumentsValidationGuard } from './validation/mcp-arguments-validation.guard';
import { McpNotifier } from './notifications/mcp-notifier.service';
import { PACKAGE_VERSION } from './package-version';
import { McpDispatcher } from './protocol/mcp-dispatcher.service';
import { McpServerFactory } from './protocol/mcp-server.factory';
import { McpRedisConnection } from './redis/mcp-redis.connection';
import { McpReplayStep } from './replay/mcp-replay.step';
import { RequestStateProtection } from './state/request-state.protection';
import { ConsumedStateStoreDelegate } from './state/consumed-state-store.delegate';
import { McpStateHandles } from './state/mcp-state-handles.service';
import { StateHandleRepositoryDelegate } from './state/state-handle-repository.delegate';
import { PartitionResolverDelegate } from './state/partition-resolver.delegate';
import { RequestStateSealer } from './state/request-state.sealer';
import { StateProtectorDelegate } from './state/state-protector.delegate';
import { McpHttpEndpoint } from './transport/mcp-http-endpoint.service';
import { McpTasksService } from './tasks/mcp-tasks.service';
import { McpTaskCalls } from './tasks/mcp-task-calls.service';
import { McpTaskMethods } from './tasks/mcp-task-methods.service';
import { TaskListenStreams } from './tasks/task-listen-streams';
import { TaskEventBusProvider } from './tasks/task-event-bus.provider';
import { TaskStatusFeed } from './tasks/task-status-feed';
import { TaskStoreDelegate } from './tasks/task-store.delegate';

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
