import { SHUTDOWN_OPTIONS } from './lifecycle/shutdown.options';
import type { Provider } from '@nestjs/common';
import { AUTH_OPTIONS, type AuthOptions } from './auth/auth.options';
import { ProtectedResource } from './auth/protected-resource';
import { DPOP_REPLAY_CACHE_PORT, dpopReplayCacheChoice } from './auth/dpop-replay-cache';
import { ResourceServer } from './auth/resource-server';
import { DISCOVERY_OPTIONS } from './discovery/discovery.options';
import { McpOperationRegistry } from './discovery/mcp-operation.registry';
import {
  DefaultAuthorizationPartitionResolver,
  PARTITION_RESOLVER_PORT,
} from './identity/authorization-partition.resolver';
import { INPUT_REQUEST_POLICY } from './input/input-request-policy';
import { KeyringManager } from './keyring/keyring-manager.service';
import { KEYRING_OPTIONS } from './keyring/keyring.options';
import {
  ATTACH_RECORD_INTEGRITY,
  attachRecordIntegrity,
  KeyringRecordIntegrity,
} from './keyring/record-integrity';
import type { McpModuleOptions } from './mcp-module-options.interface';
import { MCP_MODULE_OPTIONS } from './mcp.module-definition';
import { resolveMcpOptions, type ResolvedMcpOptions } from './mcp-options.resolver';
import { MCP_PORT_CHOICES, McpPorts, type PortChoice } from './ports/mcp-ports.service';
import { RATE_LIMIT_OPTIONS } from './pipeline/rate-limit.options';
import { SERVER_OPTIONS } from './protocol/server.options';
import { McpRedisConnection } from './redis/mcp-redis.connection';
import { REDIS_OPTIONS } from './redis/redis-options.resolver';
import { AesGcmRequestStateProtector } from './state/aes-gcm-request-state.protector';
import { REQUEST_STATE_LIMITS } from './state/request-state-limits';
import { REQUEST_STATE_PROTECTOR_PORT } from './state/request-state-protector.interface';
import { RequestStateSealer } from './state/request-state.sealer';
import { MemoryStateHandleRepository } from './stores/handles/memory-state-handle.repository';
import { RedisStateHandleRepository } from './stores/handles/redis-state-handle.repository';
import { STATE_HANDLE_REPOSITORY_PORT } from './stores/handles/state-handle-repository.interface';
import { CONSUMED_STATE_STORE_PORT } from './stores/one-time/consumed-state-store.interface';
import { MemoryConsumedStateStore } from './stores/one-time/memory-consumed-state.store';
import { RedisConsumedStateStore } from './stores/one-time/redis-consumed-state.store';
import { TASK_KEY_SEGMENT } from './ext/tasks/store/guarded-task-store';
import { MemoryTaskStore } from './ext/tasks/store/memory-task.store';
import { RedisTaskStore } from './ext/tasks/store/redis-task.store';
import { TASK_STORE_PORT } from './ext/tasks/store/task-store.interface';
import { TASK_OPTIONS } from './ext/tasks/task.options';
import { SESSION_OPTIONS } from './ext/sessions/session.options';
import { SKILL_OPTIONS } from './ext/skills/skill.options';
import { MemorySessionStore } from './ext/sessions/store/memory-session.store';
import { RedisSessionStore } from './ext/sessions/store/redis-session.store';
import { SESSION_STORE_PORT } from './ext/sessions/store/session-store.interface';
import { NOTIFICATION_OPTIONS } from './notifications/notification.options';
import { LISTEN_LIMITS } from './transport/listen-limits';
import { TRACING_OPTIONS } from './observability/tracing-options';
import { TRANSPORT_OPTIONS } from './transport/transport.options';
import { MCP_ENDPOINT, MCP_KEEP_ALIVE_MS } from './util/mcp.constants';
import { PACKAGE_VERSION } from './util/package-version';

/** DI token of the validated, defaulted module options (read only by this file). */
const MCP_RESOLVED_OPTIONS = Symbol('McpResolvedOptions');

/** One port's choice, its own type checked, in the module's list of them. */
function choice<T>(entry: PortChoice<T>): PortChoice<unknown> {
  return entry as PortChoice<unknown>;
}

/** A provider of one option slice, taken from the resolved options. */
function slice<T>(token: symbol, pick: (options: ResolvedMcpOptions) => T): Provider {
  return { provide: token, useFactory: pick, inject: [MCP_RESOLVED_OPTIONS] };
}

/**
 * How each port is filled when neither an option nor an application provider fills it: Redis when
 * the `redis` option is set, else memory; AES-256-GCM over the keyring for the protector (and only
 * then an ephemeral key, when no keyring is configured).
 */
function portChoices(
  options: ResolvedMcpOptions,
  redis: McpRedisConnection,
  keyring: KeyringManager,
  integrity: KeyringRecordIntegrity,
): PortChoice<unknown>[] {
  const { ports, requestState } = options;
  const consumedCapacity = {
    maxEntries: requestState.maxConsumedStates,
    maxEntriesPerOwner: requestState.maxConsumedStatesPerCaller,
  };
  const handleCapacity = {
    maxEntries: requestState.maxStateHandles,
    maxEntriesPerOwner: requestState.maxStateHandlesPerCaller,
    maxBytes: requestState.maxStateHandleBytes,
  };
  // A store that keeps records outside the process (the module's Redis stores, whoever made them)
  // tags and checks them under the keyring; any other keeps plain records.
  const authenticated = (store: unknown) => {
    if (store === null || typeof store !== 'object' || !(ATTACH_RECORD_INTEGRITY in store)) return;
    integrity.ensureKey();
    attachRecordIntegrity(store, integrity);
  };
  return [
    choice({
      port: REQUEST_STATE_PROTECTOR_PORT,
      fromOptions: ports.protector,
      fallback: () => {
        keyring.ensureActiveKey();
        return new AesGcmRequestStateProtector(keyring);
      },
    }),
    choice({
      port: PARTITION_RESOLVER_PORT,
      fromOptions: ports.partitionResolver,
      fallback: () => new DefaultAuthorizationPartitionResolver(ports.userIdField),
    }),
    choice({
      port: CONSUMED_STATE_STORE_PORT,
      fromOptions: ports.consumedStateStore,
      fallback: () =>
        redis.configured
          ? new RedisConsumedStateStore(redis.client, {
              keyPrefix: redis.prefix,
              commandTimeoutMs: redis.commandTimeoutMs,
              ...(redis.waitForReplicas && { waitForReplicas: redis.waitForReplicas }),
              ...consumedCapacity,
            })
          : new MemoryConsumedStateStore(consumedCapacity),
    }),
    ...dpopReplayCacheChoice(options.auth.resourceServer?.dpop, redis),
    choice({
      port: STATE_HANDLE_REPOSITORY_PORT,
      fromOptions: ports.stateHandleRepository,
      fallback: () =>
        redis.configured
          ? new RedisStateHandleRepository(redis.client, {
              keyPrefix: redis.key('handle', ''),
              commandTimeoutMs: redis.commandTimeoutMs,
              ...handleCapacity,
            })
          : new MemoryStateHandleRepository(handleCapacity),
      adopt: authenticated,
    }),
    choice({
      port: TASK_STORE_PORT,
      fromOptions: options.tasks.store,
      fallback: () =>
        redis.configured
          ? new RedisTaskStore(
              // Through run(): refused at once while disconnected, bounded by redis.commandTimeoutMs.
              { call: (command, ...args) => redis.run((client) => client.call(command, ...args)) },
              {
                keyPrefix: redis.key(TASK_KEY_SEGMENT, ''),
                maxTasks: options.tasks.maxTasks,
                maxBytes: options.tasks.maxStoreBytes,
                commandTimeoutMs: redis.commandTimeoutMs,
              },
            )
          : new MemoryTaskStore({
              maxTasks: options.tasks.maxTasks,
              maxBytes: options.tasks.maxStoreBytes,
            }),
      adopt: authenticated,
    }),
    choice({
      port: SESSION_STORE_PORT,
      fromOptions: options.sessions.store,
      fallback: () => {
        if (!redis.configured) return new MemorySessionStore();
        // Every record is tagged under the keyring: an edited or foreign one is not a session.
        integrity.ensureKey();
        return new RedisSessionStore(
          {
            call: (command: string, ...args: (string | number)[]) =>
              redis.run((client) => client.call(command, ...args)),
          },
          {
            keyPrefix: redis.key('session', ''),
            integrity,
            commandTimeoutMs: redis.commandTimeoutMs,
          },
        );
      },
      adopt: authenticated,
    }),
  ];
}

/**
 * The module's configuration providers: the options resolved once, one provider per subsystem
 * slice under its own token, and the ports (stores, protector, partition resolver) chosen in one
 * place.
 * @internal
 */
export const MCP_OPTION_PROVIDERS: Provider[] = [
  {
    provide: MCP_RESOLVED_OPTIONS,
    useFactory: (options: McpModuleOptions) => resolveMcpOptions(options, PACKAGE_VERSION),
    inject: [MCP_MODULE_OPTIONS],
  },
  slice(TRANSPORT_OPTIONS, (options) => options.transport),
  slice(MCP_ENDPOINT, (options) => options.transport.endpoint),
  slice(MCP_KEEP_ALIVE_MS, (options) => options.transport.keepAliveMs),
  slice(SERVER_OPTIONS, (options) => options.server),
  slice(LISTEN_LIMITS, (options) => options.listen),
  slice(REQUEST_STATE_LIMITS, (options) => options.requestState),
  slice(KEYRING_OPTIONS, (options) => options.keyring),
  slice(INPUT_REQUEST_POLICY, (options) => options.inputPolicy),
  slice(DISCOVERY_OPTIONS, (options) => options.discovery),
  slice(REDIS_OPTIONS, (options) => options.redis),
  slice(TASK_OPTIONS, (options) => options.tasks),
  slice(SESSION_OPTIONS, (options) => options.sessions),
  slice(SKILL_OPTIONS, (options) => options.skills),
  slice(NOTIFICATION_OPTIONS, (options) => options.notifications),
  slice(AUTH_OPTIONS, (options) => options.auth),
  slice(TRACING_OPTIONS, (options) => options.tracing),
  slice(SHUTDOWN_OPTIONS, (options) => options.shutdown),
  slice(RATE_LIMIT_OPTIONS, (options) => options.rateLimits),
  {
    provide: ProtectedResource,
    useFactory: (auth: AuthOptions, endpoint: string, registry: McpOperationRegistry) =>
      new ProtectedResource(auth, endpoint, () => registry.declaredScopes()),
    inject: [AUTH_OPTIONS, MCP_ENDPOINT, McpOperationRegistry],
  },
  {
    provide: ResourceServer,
    useFactory: (auth: AuthOptions, resource: ProtectedResource, ports: McpPorts) =>
      new ResourceServer(auth, resource, () => ports.get(DPOP_REPLAY_CACHE_PORT)),
    inject: [AUTH_OPTIONS, ProtectedResource, McpPorts],
  },
  {
    provide: MCP_PORT_CHOICES,
    useFactory: portChoices,
    inject: [MCP_RESOLVED_OPTIONS, McpRedisConnection, KeyringManager, KeyringRecordIntegrity],
  },
  McpPorts,
  {
    provide: RequestStateSealer,
    useFactory: (options: ResolvedMcpOptions, ports: McpPorts) =>
      new RequestStateSealer(options.requestState, ports),
    inject: [MCP_RESOLVED_OPTIONS, McpPorts],
  },
];
