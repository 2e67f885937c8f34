import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { McpExplorer } from './discovery/mcp.explorer';
import { McpOperationRegistry } from './discovery/mcp-operation.registry';
import type { McpModuleOptions } from './interfaces/mcp-module-options.interface';
import { McpConfigurableModuleClass, MCP_MODULE_OPTIONS } from './mcp.module-definition';
import { resolveMcpOptions } from './mcp-options.resolver';
import { MCP_RESOLVED_OPTIONS } from './mcp-resolved-options.token';
import { McpNotifier } from './notifications/mcp-notifier.service';
import { McpDispatcher } from './protocol/mcp-dispatcher.service';
import { McpServerFactory } from './protocol/mcp-server.factory';
import { McpHttpEndpoint } from './transport/mcp-http-endpoint.service';
import { PACKAGE_VERSION } from './package-version';

/**
 * Serves the application's `@McpTool`, `@McpPrompt` and `@McpResource` methods as an MCP
 * 2026-07-28 server at `options.endpoint` (default `/mcp`), on Express or Fastify.
 * Global by default; pass `isGlobal: false` to scope it.
 *
 * @example
 * ```ts
 * @Module({ imports: [McpModule.forRoot({ serverInfo: { name: 'orders', version: '1.0.0' } })], providers: [OrderTools] })
 * export class AppModule {}
 * ```
 * @publicApi
 */
@Module({
  imports: [DiscoveryModule],
  providers: [
    {
      provide: MCP_RESOLVED_OPTIONS,
      useFactory: (options: McpModuleOptions) => resolveMcpOptions(options, PACKAGE_VERSION),
      inject: [MCP_MODULE_OPTIONS],
    },
    McpOperationRegistry,
    McpExplorer,
    McpDispatcher,
    McpServerFactory,
    McpHttpEndpoint,
    McpNotifier,
  ],
  exports: [McpOperationRegistry, McpNotifier, MCP_RESOLVED_OPTIONS],
})
export class McpModule extends McpConfigurableModuleClass {}
