export { McpModule } from './mcp.module';
export { MCP_CONTEXT_TYPE, MCP_PROTOCOL_VERSION } from './mcp.constants';
export type {
  McpModuleOptions,
  McpCacheableMethod,
} from './interfaces/mcp-module-options.interface';
export type {
  JsonSchemaObject,
  McpCompleter,
  McpPromptArgument,
  McpPromptOptions,
  McpResourceOptions,
  McpToolOptions,
} from './interfaces/mcp-operation-options.interface';
export type {
  McpHttpRequest,
  McpLogLevel,
  McpProgressReporter,
  McpRequestLogger,
} from './interfaces/mcp-request-context.interface';
export { McpHttpResponse } from './context/mcp-http-response';
export { McpTool } from './decorators/mcp-tool.decorator';
export { McpPrompt } from './decorators/mcp-prompt.decorator';
export { McpResource } from './decorators/mcp-resource.decorator';
export { McpArgs, McpRequestContext } from './decorators/mcp-params.decorators';
export { McpExecutionContext, type McpContextType } from './context/mcp-execution-context';
export { isMcpContext } from './context/is-mcp-context.util';
export { McpNotifier } from './notifications/mcp-notifier.service';
export { NestjsMcpError } from './errors/nestjs-mcp.error';
export { McpErrorCode } from './errors/mcp-error-codes';
export { McpToolError } from './errors/mcp-tool.error';
export { McpProtocolException } from './errors/mcp-protocol.exception';
export { InvalidModuleOptionsError } from './errors/invalid-module-options.error';
export { DuplicateOperationError } from './errors/duplicate-operation.error';
export { InvalidOperationDefinitionError } from './errors/invalid-operation-definition.error';
export type { McpInputOptions } from './interfaces/mcp-operation-options.interface';
export type { McpRequestStateView } from './interfaces/mcp-request-context.interface';

// Input requests and responses
export { McpInputRequirement } from './input/mcp-input-requirement.enum';
export type { McpInputRequestType } from './input/mcp-input-request-type';
export { McpInputDeclaration, type McpInputDeclarationSpec } from './input/mcp-input-declaration';
export { McpMayRequestInput } from './input/mcp-may-request-input.decorator';
export {
  McpInputRequest,
  type CreateMessageParams,
  type ElicitFormParams,
  type ElicitUrlParams,
} from './input/mcp-input-request';
export {
  McpInputRequiredResult,
  McpInputRequiredResultBuilder,
  type McpCarriedState,
} from './input/mcp-input-required.result';
export { McpInputResponses, type McpTypedElicitationResponse } from './input/mcp-input-responses';
export type {
  McpElicitValue,
  McpElicitationResponse,
  McpInputResponse,
  McpRootsResponse,
  McpSamplingResponse,
} from './input/mcp-input-response';
export type { McpJsonCompatible, McpJsonValue } from './input/json-value';
export { InvalidInputRequestError } from './input/invalid-input-request.error';
export type { McpReplayAsks } from './replay/mcp-replay-asks.interface';
export {
  ConceptSecretFieldPolicy,
  DEFAULT_SECRET_CONCEPTS,
  type SecretFieldPolicy,
} from './input/secret-field.policy';

// Request state and keys
export { McpRequestStateMode } from './state/mcp-request-state-mode.enum';
export { RequestStateProtector } from './state/request-state-protector.interface';
export { AesGcmRequestStateProtector } from './state/aes-gcm-request-state.protector';
export { ConsumedStateStore } from './state/consumed-state-store.interface';
export { ConsumedStateStoreError } from './state/consumed-state-store.error';
export {
  MemoryConsumedStateStore,
  type MemoryConsumedStateStoreOptions,
} from './state/memory-consumed-state.store';
export { McpStateHandles } from './state/mcp-state-handles.service';
export { McpStateHandleFlow } from './state/mcp-state-handle-flow';
export {
  StateHandleRepository,
  type StateHandleRecord,
} from './state/state-handle-repository.interface';
export { StateHandleRepositoryError } from './state/state-handle-repository.error';
export {
  MemoryStateHandleRepository,
  type MemoryStateHandleRepositoryOptions,
} from './state/memory-state-handle.repository';
export {
  RedisStateHandleRepository,
  type RedisStateHandleClient,
  type RedisStateHandleRepositoryOptions,
} from './state/redis-state-handle.repository';
export {
  RedisConsumedStateStore,
  type RedisConsumedStateStoreOptions,
} from './state/redis-consumed-state.store';
export type { McpRedisClient } from './redis/mcp-redis-client';
export type { McpRedisOptions } from './redis/mcp-redis-options.interface';
export {
  RequestStateProtectionError,
  type RequestStateFailureReason,
} from './state/request-state-protection.error';
export {
  ANONYMOUS_PARTITION,
  McpAuthorizationPartitionResolver,
  DefaultAuthorizationPartitionResolver,
} from './state/authorization-partition.resolver';
export { INVALID_REQUEST_STATE_MESSAGE } from './state/request-state.protection';
export { KeyringManager } from './keyring/keyring-manager.service';
export type {
  KeyMaterial,
  KeyringConfig,
  KeyringFingerprint,
  KeyringSnapshot,
} from './keyring/keyring-fingerprint';
export { KeyringError } from './keyring/keyring.error';
export { KeyInUseError } from './keyring/key-in-use.error';
export { LosslessNumber } from 'lossless-json';

// Tasks (the io.modelcontextprotocol/tasks extension)
export {
  MCP_TASKS_EXTENSION,
  type McpTaskCreation,
  type McpTaskError,
  type McpTaskRecord,
  type McpTaskStatus,
  type McpTaskSupport,
} from './tasks/mcp-task.types';
export type { McpTaskContext } from './tasks/mcp-task-context';
export { TaskStore } from './tasks/task-store.interface';
export { MemoryTaskStore, type MemoryTaskStoreOptions } from './tasks/memory-task.store';
export {
  RedisTaskStore,
  type RedisCommandClient,
  type RedisTaskStoreOptions,
} from './tasks/redis-task.store';
export { TaskRunner, type TaskWork } from './tasks/task-runner.interface';
export {
  InProcessTaskRunner,
  type InProcessTaskRunnerOptions,
} from './tasks/in-process-task.runner';
export { isDetachedMcpTaskStep } from './tasks/detached-task-step';
export { BullMqTaskRunner, type BullMqTaskRunnerOptions } from './tasks/bullmq-task.runner';
export type { BullMqConnectionOptions, BullMqRedisClient } from './tasks/bullmq-redis-client';
export { TaskCapacityError } from './tasks/task-capacity.error';
