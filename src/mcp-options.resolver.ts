import { resolveShutdownOptions, type ShutdownOptions } from './wire/drain/shutdown.options';
import { resolveAuthOptions, type AuthOptions } from './auth/auth.options';
import type { DiscoveryOptions } from './operations/discovery/discovery.options';
import { InvalidModuleOptionsError } from './kit/errors/invalid-module-options.error';
import type { IdentityOptions } from './auth/identity/partition-resolver.provider';
import type { InputRequestPolicy } from './input/input-request-policy';
import { ConceptSecretFieldPolicy } from './input/secret-field.policy';
import { resolveKeyringOptions, type KeyringOptions } from './keyring/keyring.options';
import type { McpModuleOptions } from './mcp-module-options.interface';
import { MCP_EXTENSIONS } from './mcp.extensions';
import {
  booleanOption,
  implementing,
  objectOption,
  positiveInteger,
} from './options/option-checks';
import { resolveRateLimitOptions, type RateLimitOptions } from './pipeline/rate-limit.options';
import { resolveServerOptions, type ServerOptions } from './wire/protocol/server.options';
import { resolveRedisOptions, type RedisOptionsSlice } from './redis/redis-options.resolver';
import type { RequestStatePortOptions } from './request-state/request-state-ports';
import {
  resolveRequestStateLimits,
  type ResolvedRequestStateOptions,
} from './request-state/sealing/request-state-limits';
import {
  resolveNotificationOptions,
  type NotificationOptions,
} from './wire/fleet/notification.options';
import { resolveListenLimits, type ListenLimits } from './wire/listen/listen-limits';
import { resolveTracingOptions, type TracingOptions } from './observability/tracing-options';
import { resolveTransportOptions, type TransportOptions } from './wire/http/transport.options';

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
  readonly requestStatePorts: RequestStatePortOptions;
  readonly identity: IdentityOptions;
  readonly inputPolicy: InputRequestPolicy;
  readonly discovery: DiscoveryOptions;
  readonly redis: RedisOptionsSlice;
  /** Each built-in extension's options, checked even when it is off: a bad option fails startup. */
  readonly extensions: ReadonlyMap<string, unknown>;
  readonly notifications: NotificationOptions;
  readonly shutdown: ShutdownOptions;
  readonly auth: AuthOptions;
  readonly tracing: TracingOptions;
  readonly rateLimits: RateLimitOptions;
}

/**
 * Fills defaults and validates; throws {@link InvalidModuleOptionsError} naming the first bad
 * option.
 * @internal
 */
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
  const requestStatePorts: RequestStatePortOptions = {
    protector: implementing('requestState.protector', stateOptions?.protector, ['seal', 'open']),
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
  };
  const identityOptions: IdentityOptions = {
    partitionResolver: implementing('identity.partitionResolver', identity?.partitionResolver, [
      'resolve',
    ]),
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
  const auth = resolveAuthOptions(options.auth);
  return {
    transport,
    server,
    listen,
    requestState,
    keyring,
    requestStatePorts,
    identity: identityOptions,
    inputPolicy: {
      secrets: secretPolicy ?? new ConceptSecretFieldPolicy(),
      development: options.elicitation?.development ?? process.env.NODE_ENV === 'development',
    },
    discovery: {
      validateArguments,
      failOnValidationGap,
      singleUseByDefault: requestState.singleUse,
      listPageSize: listPageSize(objectOption('lists', options.lists)?.pageSize),
      listVisibility: auth.lists,
    },
    redis: { redis: resolveRedisOptions(options.redis) },
    extensions: new Map(
      MCP_EXTENSIONS.flatMap(({ name, options: own }) =>
        own ? [[name, own.resolve(options[own.key] as never)] as const] : [],
      ),
    ),
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
