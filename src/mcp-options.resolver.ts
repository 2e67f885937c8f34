import type { CacheHint } from '@modelcontextprotocol/server';
import { InvalidModuleOptionsError } from './errors/invalid-module-options.error';
import type { McpCacheableMethod, McpModuleOptions } from './mcp-module-options.interface';
import type { JsonBodyLimits } from './transport/json-body-limits';
import {
  resolveRequestStateLimits,
  type ResolvedRequestStateOptions,
} from './state/request-state-limits';
import type { ListenLimits } from './transport/listen-limits';
import type { KeyringConfig } from './keyring/keyring-fingerprint';
import type { RequestStateProtector } from './state/request-state-protector.interface';
import type { ConsumedStateStore } from './stores/one-time/consumed-state-store.interface';
import type { StateHandleRepository } from './stores/handles/state-handle-repository.interface';
import type { McpAuthorizationPartitionResolver } from './identity/authorization-partition.resolver';
import { ConceptSecretFieldPolicy, type SecretFieldPolicy } from './input/secret-field.policy';
import { resolveRedisOptions, type ResolvedRedisOptions } from './redis/redis-options.resolver';
import type { ResolvedTaskOptions } from './tasks/resolved-task-options';

/** Module options with every default filled in and every value checked. */
export interface ResolvedMcpOptions {
  endpoint: string;
  serverInfo: { name: string; version: string; title?: string };
  instructions: string | undefined;
  allowedHosts: string[];
  allowedOrigins: string[];
  dnsRebindingProtection: boolean;
  body: JsonBodyLimits;
  cacheHints: Record<McpCacheableMethod, CacheHint>;
  keepAliveMs: number;
  listen: ListenLimits;
  requestState: ResolvedRequestStateOptions;
  keyring: KeyringConfig | undefined;
  protector: RequestStateProtector | undefined;
  consumedStateStore: ConsumedStateStore | undefined;
  stateHandleRepository: StateHandleRepository | undefined;
  partitionResolver: McpAuthorizationPartitionResolver | undefined;
  userIdField: string | undefined;
  elicitation: { secretPolicy: SecretFieldPolicy; development: boolean };
  validateArguments: boolean;
  fastPath: boolean;
  redis: ResolvedRedisOptions | undefined;
  tasks: ResolvedTaskOptions;
}

const CACHEABLE: McpCacheableMethod[] = [
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
];

function positiveInteger(option: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new InvalidModuleOptionsError(option, `must be a positive integer, got ${String(value)}`);
  }
  return value;
}

function stringList(option: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (
    !Array.isArray(value) ||
    value.some((entry) => typeof entry !== 'string' || entry.trim() === '')
  ) {
    throw new InvalidModuleOptionsError(option, 'must be an array of non-empty strings');
  }
  return value as string[];
}

function resolveCacheHints(
  hints: McpModuleOptions['cacheHints'],
): Record<McpCacheableMethod, CacheHint> {
  const resolved = {} as Record<McpCacheableMethod, CacheHint>;
  for (const method of Object.keys(hints ?? {})) {
    if (!CACHEABLE.includes(method as McpCacheableMethod)) {
      throw new InvalidModuleOptionsError(
        `cacheHints.${method}`,
        `is not a cacheable method (${CACHEABLE.join(', ')})`,
      );
    }
  }
  for (const method of CACHEABLE) {
    const hint = hints?.[method] ?? { ttlMs: 0, cacheScope: 'private' as const };
    if (!Number.isSafeInteger(hint.ttlMs) || (hint.ttlMs ?? 0) < 0) {
      throw new InvalidModuleOptionsError(`cacheHints.${method}.ttlMs`, 'must be an integer >= 0');
    }
    if (hint.cacheScope !== 'public' && hint.cacheScope !== 'private') {
      throw new InvalidModuleOptionsError(
        `cacheHints.${method}.cacheScope`,
        'must be "public" or "private"',
      );
    }
    resolved[method] = hint;
  }
  return resolved;
}

/** Fills defaults and validates; throws {@link InvalidModuleOptionsError} naming the first bad option. */
export function resolveMcpOptions(
  options: McpModuleOptions = {},
  defaultVersion = '0.0.0',
): ResolvedMcpOptions {
  const endpoint = options.endpoint ?? '/mcp';
  if (typeof endpoint !== 'string' || !/^\/[A-Za-z0-9._~!$&'()*+,;=:@/-]*$/.test(endpoint)) {
    throw new InvalidModuleOptionsError('endpoint', 'must be an absolute path such as "/mcp"');
  }
  const serverInfo = options.serverInfo ?? { name: 'nestjs-mcp', version: defaultVersion };
  if (
    typeof serverInfo.name !== 'string' ||
    serverInfo.name === '' ||
    typeof serverInfo.version !== 'string' ||
    serverInfo.version === ''
  ) {
    throw new InvalidModuleOptionsError('serverInfo', 'needs a non-empty "name" and "version"');
  }
  if (options.instructions !== undefined && typeof options.instructions !== 'string') {
    throw new InvalidModuleOptionsError('instructions', 'must be a string');
  }
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  if (!Number.isSafeInteger(keepAliveMs) || keepAliveMs < 0) {
    throw new InvalidModuleOptionsError('keepAliveMs', 'must be an integer >= 0');
  }
  const requestState = resolveRequestStateLimits(options.requestState);
  const listen = resolveListenLimits(options.listen);
  for (const [option, value, methods] of [
    ['protector', options.protector, ['seal', 'open']],
    ['partitionResolver', options.partitionResolver, ['resolve']],
    ['consumedStateStore', options.consumedStateStore, ['consume']],
    ['stateHandleRepository', options.stateHandleRepository, ['put', 'redeem', 'delete']],
    ['elicitation.secretPolicy', options.elicitation?.secretPolicy, ['secretConcept']],
  ] as const) {
    if (value === undefined) continue;
    const missing = methods.find(
      (method) =>
        typeof (value as unknown as Record<string, unknown> | null)?.[method] !== 'function',
    );
    if (missing)
      throw new InvalidModuleOptionsError(
        option,
        `must implement ${methods.map((method) => `${method}()`).join(' and ')}`,
      );
  }
  if (
    options.userIdField !== undefined &&
    (typeof options.userIdField !== 'string' || options.userIdField === '')
  ) {
    throw new InvalidModuleOptionsError('userIdField', 'must be a non-empty string');
  }
  if (options.fastPath !== undefined && typeof options.fastPath !== 'boolean') {
    throw new InvalidModuleOptionsError('fastPath', 'must be a boolean');
  }
  if (options.validateArguments !== undefined && typeof options.validateArguments !== 'boolean') {
    throw new InvalidModuleOptionsError('validateArguments', 'must be a boolean');
  }
  const keyring = options.keyring as Partial<KeyringConfig> | null | undefined;
  if (
    keyring !== undefined &&
    (keyring === null ||
      typeof keyring !== 'object' ||
      typeof keyring.active !== 'string' ||
      keyring.keys === null ||
      typeof keyring.keys !== 'object')
  ) {
    throw new InvalidModuleOptionsError(
      'keyring',
      'must be { active: "<key id>", keys: { "<key id>": <bytes or base64> } }',
    );
  }
  return {
    endpoint: endpoint.length > 1 ? endpoint.replace(/\/+$/, '') : endpoint,
    serverInfo,
    instructions: options.instructions,
    allowedHosts: stringList('allowedHosts', options.allowedHosts),
    allowedOrigins: stringList('allowedOrigins', options.allowedOrigins),
    dnsRebindingProtection: options.disableDnsRebindingProtection !== true,
    body: {
      maxBytes: positiveInteger(
        'maxRequestBodyBytes',
        options.maxRequestBodyBytes,
        4 * 1024 * 1024,
      ),
      timeoutMs: positiveInteger('requestBodyTimeoutMs', options.requestBodyTimeoutMs, 10_000),
      maxInFlightBytes: positiveInteger(
        'maxInFlightRequestBytes',
        options.maxInFlightRequestBytes,
        32 * 1024 * 1024,
      ),
      maxDepth: positiveInteger('json.maxDepth', options.json?.maxDepth, 64),
      maxNumberLength: positiveInteger('json.maxNumberLength', options.json?.maxNumberLength, 1024),
      maxExponent: positiveInteger('json.maxExponent', options.json?.maxExponent, 10_000),
      maxNodes: positiveInteger('json.maxNodes', options.json?.maxNodes, 20_000),
      maxObjectKeys: positiveInteger('json.maxObjectKeys', options.json?.maxObjectKeys, 1_000),
      maxArrayLength: positiveInteger('json.maxArrayLength', options.json?.maxArrayLength, 10_000),
      maxStringLength: positiveInteger(
        'json.maxStringLength',
        options.json?.maxStringLength,
        1_048_576,
      ),
    },
    cacheHints: resolveCacheHints(options.cacheHints),
    keepAliveMs,
    listen,
    requestState,
    keyring: options.keyring,
    protector: options.protector,
    consumedStateStore: options.consumedStateStore,
    stateHandleRepository: options.stateHandleRepository,
    partitionResolver: options.partitionResolver,
    userIdField: options.userIdField,
    elicitation: {
      secretPolicy: options.elicitation?.secretPolicy ?? new ConceptSecretFieldPolicy(),
      development: options.elicitation?.development ?? process.env.NODE_ENV === 'development',
    },
    validateArguments: options.validateArguments ?? true,
    fastPath: options.fastPath ?? true,
    redis: resolveRedisOptions(options.redis),
    tasks: resolveTaskOptions(options.tasks),
  };
}

function resolveListenLimits(limits: McpModuleOptions['listen']): ListenLimits {
  if (limits !== undefined && (limits === null || typeof limits !== 'object')) {
    throw new InvalidModuleOptionsError('listen', 'must be an object');
  }
  const resolved = {
    maxStreams: positiveInteger('listen.maxStreams', limits?.maxStreams, 1000),
    maxStreamsPerCaller: positiveInteger(
      'listen.maxStreamsPerCaller',
      limits?.maxStreamsPerCaller,
      10,
    ),
    maxResourceSubscriptions: positiveInteger(
      'listen.maxResourceSubscriptions',
      limits?.maxResourceSubscriptions,
      100,
    ),
    maxUriLength: positiveInteger('listen.maxUriLength', limits?.maxUriLength, 2048),
  };
  if (resolved.maxStreamsPerCaller > resolved.maxStreams) {
    if (limits?.maxStreamsPerCaller !== undefined) {
      throw new InvalidModuleOptionsError(
        'listen.maxStreamsPerCaller',
        'must not exceed listen.maxStreams',
      );
    }
    resolved.maxStreamsPerCaller = resolved.maxStreams;
  }
  return resolved;
}

function resolveTaskOptions(tasks: McpModuleOptions['tasks']): ResolvedTaskOptions {
  if (tasks !== undefined && (tasks === null || typeof tasks !== 'object'))
    throw new InvalidModuleOptionsError('tasks', 'must be an object');
  const maxTtlMs = positiveInteger('tasks.maxTtlMs', tasks?.maxTtlMs, 86_400_000);
  const ttlMs = positiveInteger('tasks.ttlMs', tasks?.ttlMs, Math.min(3_600_000, maxTtlMs));
  if (ttlMs > maxTtlMs)
    throw new InvalidModuleOptionsError('tasks.ttlMs', 'must not exceed tasks.maxTtlMs');
  for (const [option, value, methods] of [
    ['tasks.store', tasks?.store, ['create', 'get', 'replace']],
    ['tasks.runner', tasks?.runner, ['attach', 'schedule', 'cancel', 'close']],
  ] as const) {
    const missing = methods.find(
      (method) =>
        value !== undefined &&
        typeof (value as unknown as Record<string, unknown> | null)?.[method] !== 'function',
    );
    if (missing)
      throw new InvalidModuleOptionsError(
        option,
        `must implement ${methods.map((method) => `${method}()`).join(', ')}`,
      );
  }
  return {
    ttlMs,
    maxTtlMs,
    pollIntervalMs: positiveInteger('tasks.pollIntervalMs', tasks?.pollIntervalMs, 1_000),
    maxResultBytes: positiveInteger('tasks.maxResultBytes', tasks?.maxResultBytes, 1_048_576),
    maxInputResponseBytes: positiveInteger(
      'tasks.maxInputResponseBytes',
      tasks?.maxInputResponseBytes,
      262_144,
    ),
    maxTasksPerCaller: positiveInteger('tasks.maxTasksPerCaller', tasks?.maxTasksPerCaller, 100),
    store: tasks?.store,
    runner: tasks?.runner,
  };
}
