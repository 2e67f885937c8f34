import { SHUTDOWN_OPTIONS } from './wire/drain/shutdown.options';
import type { Provider } from '@nestjs/common';
import { AUTH_OPTIONS, type AuthOptions } from './auth/auth.options';
import { ProtectedResource } from './auth/protected-resource';
import { ResourceServer } from './auth/resource-server';
import { DPOP_REPLAY_CACHE_PROVIDER, DpopReplayCache } from './auth/dpop-replay-cache';
import { portInstanceOnceFilled } from './options/forwarding-port';
import type { ConsumedStateStore } from './request-state/stores/one-time/consumed-state-store.interface';
import { RATE_LIMIT_OPTIONS } from './pipeline/rate-limit.options';
import { DISCOVERY_OPTIONS } from './operations/discovery/discovery.options';
import { McpOperationRegistry } from './operations/discovery/mcp-operation.registry';
import { INPUT_REQUEST_POLICY } from './input/input-request-policy';
import { KEYRING_OPTIONS } from './keyring/keyring.options';
import type { McpModuleOptions } from './mcp-module-options.interface';
import { MCP_MODULE_OPTIONS } from './mcp.module-definition';
import { resolveMcpOptions, type ResolvedMcpOptions } from './mcp-options.resolver';
import { SERVER_OPTIONS } from './wire/protocol/server.options';
import { REDIS_OPTIONS } from './redis/redis-options.resolver';
import { REQUEST_STATE_LIMITS } from './request-state/sealing/request-state-limits';
import { RequestStateSealer } from './request-state/sealing/request-state.sealer';
import { RequestStateProtector } from './request-state/sealing/request-state-protector.interface';
import {
  REQUEST_STATE_PORT_OPTIONS,
  REQUEST_STATE_PORT_PROVIDERS,
} from './request-state/request-state-ports';
import {
  IDENTITY_OPTIONS,
  PARTITION_RESOLVER_PROVIDER,
} from './auth/identity/partition-resolver.provider';
import { McpPorts } from './options/mcp-ports.service';
import { NOTIFICATION_OPTIONS } from './wire/fleet/notification.options';
import { LISTEN_LIMITS } from './wire/listen/listen-limits';
import { TRACING_OPTIONS } from './observability/tracing-options';
import { TRANSPORT_OPTIONS } from './wire/http/transport.options';
import { MCP_ENDPOINT, MCP_KEEP_ALIVE_MS } from './kit/mcp.constants';
import { PACKAGE_VERSION } from './kit/package-version';

/** DI token of the validated, defaulted module options (read only by this file). */
const MCP_RESOLVED_OPTIONS = Symbol('McpResolvedOptions');

/** A provider of one option slice, taken from the resolved options. */
function slice<T>(token: symbol, pick: (options: ResolvedMcpOptions) => T): Provider {
  return { provide: token, useFactory: pick, inject: [MCP_RESOLVED_OPTIONS] };
}

/**
 * The module's configuration providers: the options resolved once, one provider per subsystem
 * slice under its own token, and the core's ports (stores, protector, partition resolver), each a
 * provider filled at module init (the extensions bring their own slices and ports).
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
  slice(REQUEST_STATE_PORT_OPTIONS, (options) => options.requestStatePorts),
  slice(IDENTITY_OPTIONS, (options) => options.identity),
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
  DPOP_REPLAY_CACHE_PROVIDER,
  {
    provide: ResourceServer,
    useFactory: (auth: AuthOptions, resource: ProtectedResource, replayCache: ConsumedStateStore) =>
      // The port's instance once it is filled: a proof's jti is recorded on every DPoP request.
      new ResourceServer(auth, resource, portInstanceOnceFilled(replayCache)),
    inject: [AUTH_OPTIONS, ProtectedResource, DpopReplayCache],
  },
  McpPorts,
  ...REQUEST_STATE_PORT_PROVIDERS,
  PARTITION_RESOLVER_PROVIDER,
  {
    provide: RequestStateSealer,
    useFactory: (options: ResolvedMcpOptions, protector: RequestStateProtector) =>
      new RequestStateSealer(options.requestState, protector),
    inject: [MCP_RESOLVED_OPTIONS, RequestStateProtector],
  },
];
