import { resolveShutdownOptions, type ShutdownOptions } from './lifecycle/shutdown.options';
import { resolveAuthOptions, type AuthOptions } from './auth/auth.options';
import type { DiscoveryOptions } from './discovery/discovery.options';
import { InvalidModuleOptionsError } from './errors/invalid-module-options.error';
import type { McpAuthorizationPartitionResolver } from './identity/authorization-partition.resolver';
import type { InputRequestPolicy } from './input/input-request-policy';
import { ConceptSecretFieldPolicy } from './input/secret-field.policy';
import { resolveKeyringOptions, type KeyringOptions } from './keyring/keyring.options';
import type { McpModuleOptions } from './mcp-module-options.interface';
import {
  booleanOption,
  implementing,
  objectOption,
  positiveInteger,
} from './options/option-checks';
import { resolveRateLimitOptions, type RateLimitOptions } from './pipeline/rate-limit.options';
import { resolveServerOptions, type ServerOptions } from './protocol/server.options';
import { resolveRedisOptions, type RedisOptionsSlice } from './redis/redis-options.resolver';
import type { RequestStateProtector } from './state/request-state-protector.interface';
import {
  resolveRequestStateLimits,
  type ResolvedRequestStateOptions,
} from './state/request-state-limits';
import type { StateHandleRepository } from './stores/handles/state-handle-repository.interface';
import type { ConsumedStateStore } from './stores/one-time/consumed-state-store.interface';
import {
  resolveNotificationOptions,
  type NotificationOptions,
} from './notifications/notification.options';
import { resolveSessionOptions, type SessionOptions } from './ext/sessions/session.options';
import { resolveTaskOptions, type ResolvedTaskOptions } from './ext/tasks/task.options';
import { resolveSkillOptions, type ResolvedSkillOptions } from './ext/skills/skill.options';
import { resolveListenLimits, type ListenLimits } from './transport/listen-limits';
import { resolveTracingOptions, type TracingOptions } from './observability/tracing-options';
import { resolveTransportOptions, type TransportOptions } from './transport/transport.options';

/** What the application plugs into the module's ports through the options. @internal */
export interface PortOptions {
  readonly protector: RequestStateProtector | undefined;
  readonly consumedStateStore: ConsumedStateStore | undefined;
  readonly stateHandleRepository: StateHandleRepository | undefined;
  readonly partitionResolver: McpAuthorizationPartitionResolver | undefined;
  /** The `req.user` field the default partition resolver identifies users by. */
  readonly userIdField: string | undefined;
}

/**
 * The module options with every default filled in and every value checked, as one slice per
 * subsystem; `mcp.providers.ts` provides each slice under its own token, and no other file reads
 * this whole.
 * @internal
 */
export interface ResolvedMcpOptions {
  readonly transport: TransportOptions;
  readonly server: ServerOptions;
  readonly listen: ListenLimits;
  readonly requestState: ResolvedRequestStateOptions;
  readonly keyring: KeyringOptions;
  readonly ports: PortOptions;
  readonly inputPolicy: InputRequestPolicy;
  readonly discovery: DiscoveryOptions;
  readonly redis: RedisOptionsSlice;
  readonly tasks: ResolvedTaskOptions;
  readonly sessions: SessionOptions;
  readonly skills: ResolvedSkillOptions;
  readonly notifications: NotificationOptions;
  readonly shutdown: ShutdownOptions;
  readonly auth: AuthOptions;
  readonly tracing: TracingOptions;
  readonly rateLimits: RateLimitOptions;
}

/** Fills defaults and validates; throws {@link InvalidModuleOptionsError} naming the first bad option. */
export function resolveMcpOptions(
  options: McpModuleOptions = {},
  defaultVersion = '0.0.0',
): ResolvedMcpOptions {
  refuseMovedOptions(options);
  const transport = resolveTransportOptions(options.endpoint, options.http);
  const server = resolveServerOptions(options, defaultVersion);
  const requestState = resolveRequestStateLimits(options.requestState);
  const listen = resolveListenLimits(options.listen);
  const stateOptions = options.requestState;
  const identity = objectOption('identity', options.identity);
  const ports: PortOptions = {
    protector: implementing('requestState.protector', stateOptions?.protector, ['seal', 'open']),
    partitionResolver: implementing('identity.partitionResolver', identity?.partitionResolver, [
      'resolve',
    ]),
    consumedStateStore: implementing(
      'requestState.consumedStateStore',
      stateOptions?.consumedStateStore,
      ['consume'],
    ),
    stateHandleRepository: implementing(
      'requestState.stateHandleRepository',
      stateOptions?.stateHandleRepository,
      ['put', 'redeem', 'delete'],
    ),
    userIdField: userIdField(identity?.userIdField),
  };
  const secretPolicy = implementing('elicitation.secretPolicy', options.elicitation?.secretPolicy, [
    'secretConcept',
  ]);
  const validation = objectOption('validation', options.validation);
  const validateArguments = booleanOption('validation.arguments', validation?.arguments, true);
  const failOnValidationGap = booleanOption(
    'validation.failOnGap',
    validation?.failOnGap,
    process.env.NODE_ENV === 'production',
  );
  const keyring = resolveKeyringOptions(options.keyring, options.allowEphemeralKey);
  const tasks = resolveTaskOptions(options.tasks);
  const sessions = resolveSessionOptions(options.sessions);
  const auth = resolveAuthOptions(options.auth);
  return {
    transport,
    server,
    listen,
    requestState,
    keyring,
    ports,
    inputPolicy: {
      secrets: secretPolicy ?? new ConceptSecretFieldPolicy(),
      development: options.elicitation?.development ?? process.env.NODE_ENV === 'development',
    },
    discovery: {
      validateArguments,
      failOnValidationGap,
      singleUseByDefault: requestState.singleUse,
      listPageSize: listPageSize(objectOption('lists', options.lists)?.pageSize),
      taskTtl: { ttlMs: tasks.ttlMs, maxTtlMs: tasks.maxTtlMs, served: tasks.enabled },
      listVisibility: auth.lists,
    },
    redis: { redis: resolveRedisOptions(options.redis) },
    tasks,
    sessions,
    skills: resolveSkillOptions(options.skills),
    notifications: resolveNotificationOptions(transport.body.maxBytes),
    auth,
    tracing: resolveTracingOptions(options.tracing),
    rateLimits: resolveRateLimitOptions(options.rateLimits),
    shutdown: resolveShutdownOptions(options.shutdown),
  };
}

const DEFAULT_LIST_PAGE_SIZE = 100;
const MAX_LIST_PAGE_SIZE = 10_000;

function listPageSize(value: unknown): number {
  const size = positiveInteger('lists.pageSize', value, DEFAULT_LIST_PAGE_SIZE);
  if (size > MAX_LIST_PAGE_SIZE)
    throw new InvalidModuleOptionsError('lists.pageSize', `must be at most ${MAX_LIST_PAGE_SIZE}`);
  return size;
}

function userIdField(value: unknown): string | undefined {
  if (value !== undefined && (typeof value !== 'string' || value === ''))
    throw new InvalidModuleOptionsError('identity.userIdField', 'must be a non-empty string');
  return value;
}

/** Options that moved under their subsystem (see CHANGELOG.md), and where they live now. */
const MOVED_OPTIONS: Readonly<Record<string, string>> = {
  allowedHosts: 'http.allowedHosts',
  allowedOrigins: 'http.allowedOrigins',
  disableDnsRebindingProtection: 'http.disableDnsRebindingProtection',
  maxRequestBodyBytes: 'http.maxRequestBodyBytes',
  requestBodyTimeoutMs: 'http.requestBodyTimeoutMs',
  maxInFlightRequestBytes: 'http.maxInFlightRequestBytes',
  json: 'http.json',
  keepAliveMs: 'http.keepAliveMs',
  fastPath: 'http.fastPath',
  protector: 'requestState.protector',
  consumedStateStore: 'requestState.consumedStateStore',
  stateHandleRepository: 'requestState.stateHandleRepository',
  partitionResolver: 'identity.partitionResolver',
  userIdField: 'identity.userIdField',
};

/** An option spelled where it used to be fails startup naming its new place, never silently ignored. */
function refuseMovedOptions(options: object): void {
  for (const [old, now] of Object.entries(MOVED_OPTIONS))
    if (Object.prototype.hasOwnProperty.call(options, old))
      throw new InvalidModuleOptionsError(old, `has moved to "${now}" (see CHANGELOG.md)`);
}
