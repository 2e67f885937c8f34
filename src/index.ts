export { McpModule } from './mcp.module';
export { MCP_CONTEXT_TYPE, MCP_PROTOCOL_VERSION } from './util/mcp.constants';
export type { McpModuleOptions, McpCacheableMethod } from './mcp-module-options.interface';
export type {
  JsonSchemaObject,
  McpCompleter,
  McpPromptArgument,
  McpPromptOptions,
  McpResourceOptions,
  McpToolOptions,
} from './decorators/mcp-operation-options.interface';
export type {
  McpHttpRequest,
  McpLogLevel,
  McpProgressReporter,
  McpRequestLogger,
} from './interfaces/mcp-operation-context.interface';
export { McpHttpResponse } from './pipeline/mcp-http-response';
export { McpTool } from './decorators/mcp-tool.decorator';
export { McpPrompt } from './decorators/mcp-prompt.decorator';
export { McpResource } from './decorators/mcp-resource.decorator';
export { McpArgs, McpContext } from './decorators/mcp-params.decorators';
export type { McpOperationContext } from './interfaces/mcp-operation-context.interface';
export { McpExecutionContext, type McpContextType } from './context/mcp-execution-context';
export { isMcpContext } from './context/is-mcp-context.util';
export { McpNotifier } from './transport/mcp-notifier.service';
export { NestjsMcpError } from './errors/nestjs-mcp.error';
export { McpErrorCode } from './errors/mcp-error-codes';
export { McpToolError } from './errors/mcp-tool.error';
export { McpProtocolException } from './errors/mcp-protocol.exception';
export { InvalidModuleOptionsError } from './errors/invalid-module-options.error';
export { DuplicateOperationError } from './errors/duplicate-operation.error';
export { InvalidOperationDefinitionError } from './errors/invalid-operation-definition.error';
export type { McpInputOptions } from './decorators/mcp-operation-options.interface';
export type { McpRequestStateView } from './interfaces/mcp-operation-context.interface';

// Input requests and responses
export { McpInputRequirement } from './input/mcp-input-requirement.enum';
export type { McpInputRequestType } from './input/mcp-input-request-type';
export { McpInputDeclaration, type McpInputDeclarationSpec } from './input/mcp-input-declaration';
export { McpMayRequestInput } from './decorators/mcp-may-request-input.decorator';
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
export type { McpJsonCompatible, McpJsonValue } from './util/json-value';
export { InvalidInputRequestError } from './input/invalid-input-request.error';
export type { McpReplayAsks } from './interfaces/mcp-replay-asks.interface';
export {
  ConceptSecretFieldPolicy,
  DEFAULT_SECRET_CONCEPTS,
  type SecretFieldPolicy,
} from './input/secret-field.policy';

// Request state and keys
export { McpRequestStateMode } from './input/mcp-request-state-mode.enum';
export { RequestStateProtector } from './state/request-state-protector.interface';
export { AesGcmRequestStateProtector } from './state/aes-gcm-request-state.protector';
export { ConsumedStateStore } from './stores/one-time/consumed-state-store.interface';
export { ConsumedStateStoreError } from './stores/one-time/consumed-state-store.error';
export {
  MemoryConsumedStateStore,
  type MemoryConsumedStateStoreOptions,
} from './stores/one-time/memory-consumed-state.store';
export { McpStateHandles } from './handles/mcp-state-handles.service';
export { McpStateHandleFlow } from './handles/mcp-state-handle-flow';
export {
  StateHandleRepository,
  type StateHandleRecord,
} from './stores/handles/state-handle-repository.interface';
export { StateHandleRepositoryError } from './stores/handles/state-handle-repository.error';
export {
  MemoryStateHandleRepository,
  type MemoryStateHandleRepositoryOptions,
} from './stores/handles/memory-state-handle.repository';
export {
  RedisStateHandleRepository,
  type RedisStateHandleClient,
  type RedisStateHandleRepositoryOptions,
} from './stores/handles/redis-state-handle.repository';
export {
  RedisConsumedStateStore,
  type RedisConsumedStateStoreOptions,
} from './stores/one-time/redis-consumed-state.store';
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
} from './identity/authorization-partition.resolver';
export { INVALID_REQUEST_STATE_MESSAGE } from './errors/invalid-request-state.message';
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
} from './tasks/store/mcp-task.types';
export type { McpTaskContext } from './interfaces/mcp-task-context.interface';
export { TaskStore } from './tasks/store/task-store.interface';
export { MemoryTaskStore, type MemoryTaskStoreOptions } from './tasks/store/memory-task.store';
export {
  RedisTaskStore,
  type RedisCommandClient,
  type RedisTaskStoreOptions,
} from './tasks/store/redis-task.store';
export { TaskRunner, type TaskStepLease, type TaskWork } from './tasks/runner/task-runner.interface';
export {
  InProcessTaskRunner,
  type InProcessTaskRunnerOptions,
} from './tasks/runner/in-process-task.runner';
export { isDetachedMcpTaskStep } from './context/is-detached-mcp-task-step';
export { BullMqTaskRunner, type BullMqTaskRunnerOptions } from './tasks/runner/bullmq-task.runner';
export type {
  BullMqConnectionOptions,
  BullMqRedisClient,
} from './tasks/runner/bullmq-redis-client';
export { TaskCapacityError } from './tasks/store/task-capacity.error';
