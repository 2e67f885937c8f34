import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { McpExplorer } from './discovery/mcp.explorer';
import { McpOperationRegistry } from './discovery/mcp-operation.registry';
import { CapabilityGatingInterceptor } from './pipeline/capability-gating.interceptor';
import { StateProtectionInterceptor } from './pipeline/state-protection.interceptor';
import { OperationRunner } from './pipeline/operation-runner';
import { INPUT_REQUEST_POLICY } from './input/input-request-policy';
import { REQUEST_STATE_LIMITS } from './state/request-state-limits';
import { MCP_ENDPOINT } from './util/mcp.constants';
import { TaskCallers } from './tasks/task-callers';
import { TaskStepExecutor } from './tasks/steps/task-step.executor';
import { TaskStepRequests } from './tasks/steps/task-step-requests';
import type { McpModuleOptions } from './mcp-module-options.interface';
import { KeyringManager } from './keyring/keyring-manager.service';
import { McpConfigurableModuleClass, MCP_MODULE_OPTIONS } from './mcp.module-definition';
import { resolveMcpOptions, type ResolvedMcpOptions } from './mcp-options.resolver';
import { MCP_RESOLVED_OPTIONS } from './mcp-resolved-options.token';
import { McpNotifier } from './transport/mcp-notifier.service';
import { PACKAGE_VERSION } from './util/package-version';
import { McpDispatcher } from './protocol/mcp-dispatcher.service';
import { SdkServerFactory } from './protocol/sdk-server.factory';
import { McpRedisConnection } from './redis/mcp-redis.connection';
import { McpReplayStep } from './replay/mcp-replay.step';
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
    {
      provide: MCP_ENDPOINT,
      useFactory: (options: ResolvedMcpOptions) => options.endpoint,
      inject: [MCP_RESOLVED_OPTIONS],
    },
    {
      provide: REQUEST_STATE_LIMITS,
      useFactory: (options: ResolvedMcpOptions) => options.requestState,
      inject: [MCP_RESOLVED_OPTIONS],
    },
    {
      provide: INPUT_REQUEST_POLICY,
      useFactory: (options: ResolvedMcpOptions) => ({
        secrets: options.elicitation.secretPolicy,
        development: options.elicitation.development,
      }),
      inject: [MCP_RESOLVED_OPTIONS],
    },
    CapabilityGatingInterceptor,
    StateProtectionInterceptor,
    McpReplayStep,
    OperationRunner,
    McpOperationRegistry,
    McpExplorer,
    TaskStoreDelegate,
    TaskEventBusProvider,
    TaskStatusFeed,
    McpTasksService,
    TaskCallers,
    TaskStepRequests,
    TaskStepExecutor,
    McpTaskCalls,
    McpTaskMethods,
    TaskListenStreams,
    McpDispatcher,
    SdkServerFactory,
    McpHttpEndpoint,
    McpNotifier,
  ],
  exports: [KeyringManager, McpOperationRegistry, McpNotifier, McpStateHandles],
})
export class McpModule extends McpConfigurableModuleClass {}
