import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';
import * as publicApi from './index';
import * as redisApi from './entry/redis';
import * as sessionsApi from './entry/sessions';

/** Every name a barrel exports, values and types alike, as its source declares them. */
function declaredNames(file: string): string[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(join(__dirname, file), 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const names: string[] = [];
  source.forEachChild((node) => {
    if (ts.isExportDeclaration(node) && node.exportClause && ts.isNamedExports(node.exportClause))
      for (const element of node.exportClause.elements) names.push(element.name.text);
  });
  return names.sort();
}

describe('the public API', () => {
  // Registries, the module's own interceptors, option tokens and the Redis adapters stay out of the
  // root; these lists change only on purpose (and CHANGELOG.md says so).
  it('exports from the root what applications write against, and nothing else', () => {
    expect(declaredNames('index.ts')).toEqual([
      'ANONYMOUS_PARTITION',
      'AesGcmRequestStateProtector',
      'ConceptSecretFieldPolicy',
      'ConsumedStateStore',
      'ConsumedStateStoreError',
      'DEFAULT_SECRET_CONCEPTS',
      'DefaultAuthorizationPartitionResolver',
      'DuplicateOperationError',
      'InProcessTaskRunner',
      'InvalidInputRequestError',
      'InvalidModuleOptionsError',
      'InvalidOperationDefinitionError',
      'KeyInUseError',
      'KeyringConfig',
      'KeyringError',
      'KeyringFingerprint',
      'KeyringManager',
      'KeyringSnapshot',
      'LosslessNumber',
      'MCP_PROTOCOL_VERSION',
      'MCP_TASKS_EXTENSION',
      'McpArgs',
      'McpAuthorizationPartitionResolver',
      'McpCompleter',
      'McpContext',
      'McpContextType',
      'McpElicitationResponse',
      'McpErrorCode',
      'McpExecutionContext',
      'McpFlowEvent',
      'McpFlowEvents',
      'McpHttpResponse',
      'McpInputDeclaration',
      'McpInputDeclarationSpec',
      'McpInputRequest',
      'McpInputRequiredResult',
      'McpInputRequirement',
      'McpInputResponse',
      'McpInputResponses',
      'McpJsonValue',
      'McpMayRequestInput',
      'McpModule',
      'McpModuleOptions',
      'McpNotifier',
      'McpOperationContext',
      'McpPrompt',
      'McpPromptArgument',
      'McpPromptOptions',
      'McpProtocolException',
      'McpRedisOptions',
      'McpRequestStateMode',
      'McpResource',
      'McpResourceOptions',
      'McpRootsResponse',
      'McpSamplingResponse',
      'McpSealedInputRequired',
      'McpStandardSchema',
      'McpStateHandleFlow',
      'McpStateHandles',
      'McpTaskRecord',
      'McpTool',
      'McpToolError',
      'McpToolOptions',
      'MemoryConsumedStateStore',
      'MemoryStateHandleRepository',
      'MemoryTaskStore',
      'NestjsMcpError',
      'RequestStateFailureReason',
      'RequestStateProtectionError',
      'RequestStateProtector',
      'SecretFieldPolicy',
      'StateHandleRecord',
      'StateHandleRepository',
      'StateHandleRepositoryError',
      'TaskCapacityError',
      'TaskRunner',
      'TaskStore',
      'TaskWork',
      'isDetachedMcpTaskStep',
      'isMcpContext',
    ]);
  });

  it('keeps the root small', () => {
    expect(declaredNames('index.ts').length).toBeLessThanOrEqual(80);
  });

  it('has a value at runtime for every value name it declares', () => {
    const values = Object.keys(publicApi).sort();
    expect(values.every((name) => declaredNames('index.ts').includes(name))).toBe(true);
    expect(values).toContain('McpModule');
  });

  it('exports the Redis and BullMQ adapters from nestjs-mcp/redis', () => {
    expect(declaredNames('entry/redis.ts')).toEqual([
      'BullMqConnectionOptions',
      'BullMqTaskRunner',
      'BullMqTaskRunnerOptions',
      'McpRedisClient',
      'RedisConsumedStateStore',
      'RedisConsumedStateStoreOptions',
      'RedisSessionCommandClient',
      'RedisSessionStore',
      'RedisSessionStoreOptions',
      'RedisStateHandleRepository',
      'RedisStateHandleRepositoryOptions',
      'RedisTaskStore',
      'RedisTaskStoreOptions',
    ]);
    expect(Object.keys(redisApi).sort()).toEqual([
      'BullMqTaskRunner',
      'RedisConsumedStateStore',
      'RedisSessionStore',
      'RedisStateHandleRepository',
      'RedisTaskStore',
    ]);
  });

  it('exports the session store contract from nestjs-mcp/sessions', () => {
    expect(declaredNames('entry/sessions.ts')).toEqual([
      'McpSessionRecord',
      'MemorySessionStore',
      'MemorySessionStoreOptions',
      'SessionCapacityError',
      'SessionCreationLimits',
      'SessionStore',
    ]);
    expect(Object.keys(sessionsApi).sort()).toEqual([
      'MemorySessionStore',
      'SessionCapacityError',
      'SessionStore',
    ]);
  });
});
