export { McpModule } from './mcp.module';
export { MCP_MODULE_OPTIONS } from './mcp.module-definition';
export { MCP_CONTEXT_TYPE, MCP_PROTOCOL_VERSION } from './mcp.constants';
export type { McpModuleOptions, McpCacheableMethod } from './interfaces/mcp-module-options.interface';
export type {
  JsonSchemaObject,
  McpCompleter,
  McpPromptArgument,
  McpPromptOptions,
  McpResourceOptions,
  McpToolOptions,
} from './interfaces/mcp-operation-options.interface';
export type {
  McpLogLevel,
  McpProgressReporter,
  McpRequestLogger,
} from './interfaces/mcp-request-context.interface';
export { McpTool } from './decorators/mcp-tool.decorator';
export { McpPrompt } from './decorators/mcp-prompt.decorator';
export { McpResource } from './decorators/mcp-resource.decorator';
export { McpArgs, McpRequestContext } from './decorators/mcp-params.decorators';
export { McpExecutionContext, type McpContextType } from './context/mcp-execution-context';
export { isMcpContext } from './context/is-mcp-context.util';
export { McpOperationRegistry } from './discovery/mcp-operation.registry';
export { McpNotifier } from './notifications/mcp-notifier.service';
export { McpError } from './errors/mcp.error';
export { McpErrorCode } from './errors/mcp-error-codes';
export { McpToolError } from './errors/mcp-tool.error';
export { McpProtocolException } from './errors/mcp-protocol.exception';
export { InvalidModuleOptionsError } from './errors/invalid-module-options.error';
export { DuplicateOperationError } from './errors/duplicate-operation.error';
export { InvalidOperationDefinitionError } from './errors/invalid-operation-definition.error';
