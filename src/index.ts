// The public face of `nestjs-mcp`: what applications write against. The other faces, side by side in
// src/entry/: `nestjs-mcp/stores` (the single-use and handle store ports), `/tasks` and `/sessions`
// (each extension's ports), `/redis` (the Redis and BullMQ adapters), `/health`, `/throttler`,
// `/testing` (test helpers and the ports' contract suites), and `/extension` (an extension of an
// application's own: its definition, ports and the seams it installs into).
// `src/index.spec.ts` pins this list; it changes only on purpose. Only what these faces reach ships
// in the declarations: every other exported declaration is tagged internal (stripInternal).

// The module
export { McpModule } from './mcp.module';
export type { McpModuleOptions } from './mcp-module-options.interface';
export { MCP_PROTOCOL_VERSION } from './kit/mcp.constants';

// Operations
export { McpTool } from './operations/decorators/mcp-tool.decorator';
export { McpPrompt } from './operations/decorators/mcp-prompt.decorator';
export { McpResource } from './operations/decorators/mcp-resource.decorator';
export { McpArgs, McpContext } from './operations/decorators/mcp-params.decorators';
export type {
  McpCompleter,
  McpPromptOptions,
  McpResourceOptions,
  McpToolOptions,
} from './operations/decorators/mcp-operation-options.interface';
export type { McpStandardSchema } from './pipeline/validation/standard-schema';
export type { McpOperationContext } from './input/mcp-operation-context.interface';
export { McpExecutionContext } from './operations/context/mcp-execution-context';
export { isMcpContext } from './operations/context/is-mcp-context.util';
export type { McpHttpResponse } from './pipeline/mcp-http-response';
export { McpNotifier } from './wire/listen/mcp-notifier.service';

// Asking for input
export { McpMayRequestInput } from './operations/decorators/mcp-may-request-input.decorator';
export { McpInputRequirement } from './input/mcp-input-requirement.enum';
export { McpInputDeclaration } from './input/mcp-input-declaration';
export { McpInputRequest } from './input/mcp-input-request';
export { McpInputRequiredResult } from './input/mcp-input-required.result';
export type { McpSealedInputRequired } from './pipeline/innermost-outcome';
export { McpInputResponses } from './input/mcp-input-responses';
export type {
  McpElicitationResponse,
  McpInputResponse,
  McpRootsResponse,
  McpSamplingResponse,
} from './input/mcp-input-response';
export type { McpJsonValue } from './kit/json-value';
export { ConceptSecretFieldPolicy, type SecretFieldPolicy } from './input/secret-field.policy';
// The class of exact numbers in answers, from the package's own copy of lossless-json.
export { LosslessNumber } from 'lossless-json';

// Request state, keys and the caller
export { McpRequestStateMode } from './input/mcp-request-state-mode.enum';
export { RequestStateProtector } from './request-state/sealing/request-state-protector.interface';
export { AesGcmRequestStateProtector } from './request-state/sealing/aes-gcm-request-state.protector';
export { RequestStateProtectionError } from './request-state/sealing/request-state-protection.error';
export { KeyringManager } from './keyring/keyring-manager.service';
export { KeyWrapper } from './keyring/wrapping/key-wrapper.interface';
export type { KeyringConfig, KeyringSnapshot } from './keyring/keyring-fingerprint';
export {
  ANONYMOUS_PARTITION,
  DefaultAuthorizationPartitionResolver,
  McpAuthorizationPartitionResolver,
} from './auth/identity/authorization-partition.resolver';

// State handles and flow events (the stores' ports are in `nestjs-mcp/stores`)
export { McpStateHandles } from './operations/handles/mcp-state-handles.service';
export { McpFlowEvents } from './observability/mcp-flow-events.service';
export type { McpFlowEvent } from './observability/mcp-flow-event';
export type { McpRedisOptions } from './redis/mcp-redis-options.interface';

// Errors
export { NestjsMcpError } from './kit/errors/nestjs-mcp.error';
export { McpErrorCode } from './kit/errors/mcp-error-codes';
export { McpToolError } from './kit/errors/mcp-tool.error';
export { McpProtocolException } from './kit/errors/mcp-protocol.exception';
export { InvalidModuleOptionsError } from './kit/errors/invalid-module-options.error';
export { DuplicateOperationError } from './kit/errors/duplicate-operation.error';
export { InvalidOperationDefinitionError } from './kit/errors/invalid-operation-definition.error';
export { InvalidInputRequestError } from './input/invalid-input-request.error';
export { KeyringError } from './keyring/keyring.error';
export { KeyInUseError } from './keyring/key-in-use.error';
