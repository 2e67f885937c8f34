import * as publicApi from './index';

describe('the public API', () => {
  // Registries, the library's interceptors, option tokens and test helpers stay internal; this
  // list changes only on purpose.
  it('exports what applications write against, and nothing else', () => {
    expect(Object.keys(publicApi).sort()).toEqual([
      'ANONYMOUS_PARTITION',
      'AesGcmRequestStateProtector',
      'ConceptSecretFieldPolicy',
      'ConsumedStateStore',
      'ConsumedStateStoreError',
      'DEFAULT_SECRET_CONCEPTS',
      'DefaultAuthorizationPartitionResolver',
      'DuplicateOperationError',
      'INVALID_REQUEST_STATE_MESSAGE',
      'InvalidInputRequestError',
      'InvalidModuleOptionsError',
      'InvalidOperationDefinitionError',
      'KeyInUseError',
      'KeyringError',
      'KeyringManager',
      'LosslessNumber',
      'MCP_CONTEXT_TYPE',
      'MCP_PROTOCOL_VERSION',
      'McpArgs',
      'McpAuthorizationPartitionResolver',
      'McpErrorCode',
      'McpExecutionContext',
      'McpHttpResponse',
      'McpInputDeclaration',
      'McpInputRequest',
      'McpInputRequiredResult',
      'McpInputRequiredResultBuilder',
      'McpInputRequirement',
      'McpInputResponses',
      'McpMayRequestInput',
      'McpModule',
      'McpNotifier',
      'McpPrompt',
      'McpProtocolException',
      'McpRequestContext',
      'McpRequestStateMode',
      'McpResource',
      'McpTool',
      'McpToolError',
      'MemoryConsumedStateStore',
      'NestjsMcpError',
      'RequestStateProtectionError',
      'RequestStateProtector',
      'isMcpContext',
    ]);
  });
});
