import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { McpExplorer } from './discovery/mcp.explorer';
import { McpListings } from './discovery/mcp-listings.service';
import { McpOperationRegistry } from './discovery/mcp-operation.registry';
import { McpStateHandles } from './handles/mcp-state-handles.service';
import { CallerPartitions } from './identity/caller-partitions';
import { KeyringManager } from './keyring/keyring-manager.service';
import { KeyringRecordIntegrity } from './keyring/record-integrity';
import { McpConfigurableModuleClass } from './mcp.module-definition';
import { MCP_OPTION_PROVIDERS } from './mcp.providers';
import { CapabilityGatingInterceptor } from './pipeline/capability-gating.interceptor';
import { OperationRunner } from './pipeline/operation-runner';
import { McpFlowEvents } from './observability/mcp-flow-events.service';
import { McpTelemetry } from './observability/mcp-telemetry.service';
import { StateProtectionInterceptor } from './pipeline/state-protection.interceptor';
import { McpDispatcher } from './protocol/mcp-dispatcher.service';
import { SdkServerFactory } from './protocol/sdk-server.factory';
import { McpRedisConnection } from './redis/mcp-redis.connection';
import { McpReplayStep } from './replay/mcp-replay.step';
import { TaskEventBusProvider } from './ext/tasks/events/task-event-bus.provider';
import { TaskStatusFeed } from './ext/tasks/events/task-status-feed';
import { McpTaskCalls } from './ext/tasks/mcp-task-calls.service';
import { McpTasksService } from './ext/tasks/mcp-tasks.service';
import { TaskStepExecutor } from './ext/tasks/steps/task-step.executor';
import { TaskStepRequests } from './ext/tasks/steps/task-step-requests';
import { TaskStepWork } from './ext/tasks/steps/task-step.work';
import { TaskRecords } from './ext/tasks/task-records';
import { GuardedTaskStore } from './ext/tasks/store/guarded-task-store';
import { TaskListenStreams } from './ext/tasks/streams/task-listen-streams';
import { TaskCallers } from './ext/tasks/task-callers';
import { McpTaskMethods } from './ext/tasks/wire/mcp-task-methods.service';
import { SessionAnswers } from './ext/sessions/calls/session-answers';
import { SessionCallRegistry } from './ext/sessions/calls/session-call-registry';
import { SessionInputRounds } from './ext/sessions/calls/session-input-rounds';
import { SessionEventBusProvider } from './notifications/session-event-bus.provider';
import { McpSessions } from './ext/sessions/mcp-sessions.service';
import { SessionEndpoint } from './ext/sessions/session-endpoint';
import { SessionMethods } from './ext/sessions/session-methods';
import { SessionGetStreams } from './ext/sessions/streams/session-get-streams';
import { SessionTasks } from './ext/sessions/tasks/session-tasks';
import { McpHttpEndpoint } from './transport/mcp-http-endpoint.service';
import { ListenEndpoint } from './transport/listen-endpoint';
import { ListenStreams } from './transport/listen-streams';
import { McpNotifier } from './transport/mcp-notifier.service';
import { SdkHandlers } from './transport/sdk-handlers';

/**
 * Serves the application's `@McpTool`, `@McpPrompt` and `@McpResource` methods as an MCP
 * 2026-07-28 server at `options.endpoint` (default `/mcp`), on Express or Fastify, with declared
 * input requests, sealed request state and a rotating keyring. Global by default, so any module
 * can inject `KeyringManager`, `McpNotifier`, `McpStateHandles` and `McpFlowEvents`; pass `isGlobal: false` to scope it.
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
    KeyringManager,
    KeyringRecordIntegrity,
    McpRedisConnection,
    CallerPartitions,
    McpStateHandles,
    // The pipeline
    CapabilityGatingInterceptor,
    StateProtectionInterceptor,
    McpReplayStep,
    OperationRunner,
    McpTelemetry,
    McpFlowEvents,
    McpOperationRegistry,
    McpListings,
    McpExplorer,
    // Tasks
    GuardedTaskStore,
    TaskEventBusProvider,
    TaskStatusFeed,
    TaskCallers,
    TaskStepRequests,
    TaskStepExecutor,
    TaskRecords,
    TaskStepWork,
    McpTasksService,
    McpTaskCalls,
    McpTaskMethods,
    TaskListenStreams,
    // 2025-era sessions
    SessionEventBusProvider,
    McpSessions,
    SessionAnswers,
    SessionCallRegistry,
    SessionInputRounds,
    SessionTasks,
    SessionMethods,
    SessionGetStreams,
    SessionEndpoint,
    // The wire
    McpDispatcher,
    SdkServerFactory,
    SdkHandlers,
    ListenEndpoint,
    ListenStreams,
    McpHttpEndpoint,
    McpNotifier,
  ],
  // CallerPartitions: for McpThrottlerGuard (nestjs-mcp/throttler), which an app provides itself.
  exports: [KeyringManager, McpNotifier, McpStateHandles, CallerPartitions, McpFlowEvents],
})
export class McpModule extends McpConfigurableModuleClass {}
