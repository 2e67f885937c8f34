import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { McpExplorer } from './discovery/mcp.explorer';
import { McpOperationRegistry } from './discovery/mcp-operation.registry';
import { McpCapabilityInterceptor } from './input/mcp-capability.interceptor';
import type { McpModuleOptions } from './interfaces/mcp-module-options.interface';
import { KeyringManager } from './keyring/keyring-manager.service';
import { McpConfigurableModuleClass, MCP_MODULE_OPTIONS } from './mcp.module-definition';
import { resolveMcpOptions, type ResolvedMcpOptions } from './mcp-options.resolver';
import { MCP_RESOLVED_OPTIONS } from './mcp-resolved-options.token';
import { McpNotifier } from './notifications/mcp-notifier.service';
import { PACKAGE_VERSION } from './package-version';
import { McpDispatcher } from './protocol/mcp-dispatcher.service';
import { McpServerFactory } from './protocol/mcp-server.factory';
import { AesGcmRequestStateProtector } from './state/aes-gcm-request-state.protector';
import {
  DefaultAuthorizationPartitionResolver,
  McpAuthorizationPartitionResolver,
} from './state/authorization-partition.resolver';
import { McpRequestStateInterceptor } from './state/mcp-request-state.interceptor';
import { RequestStateSealer } from './state/request-state.sealer';
import { RequestStateProtector } from './state/request-state-protector.interface';
import { McpHttpEndpoint } from './transport/mcp-http-endpoint.service';

/**
 * Serves the application's `@McpTool`, `@McpPrompt` and `@McpResource` methods as an MCP
 * 2026-07-28 server at `options.endpoint` (default `/mcp`), on Express or Fastify, with declared
 * input requests, sealed request state and a rotating keyring. Global by default (its interceptors
 * are instantiated in the modules that declare operations); pass `isGlobal: false` to scope it.
 *
 * @example
 * ```ts
 * @Module({
 *   imports: [McpModule.forRoot({ serverInfo: { name: 'orders', version: '1.0.0' }, keyring })],
 *   providers: [OrderTools],
 * })
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
    KeyringManager,
    {
      provide: RequestStateProtector,
      useFactory: (options: ResolvedMcpOptions, keyring: KeyringManager) =>
        options.protector ?? new AesGcmRequestStateProtector(keyring),
      inject: [MCP_RESOLVED_OPTIONS, KeyringManager],
    },
    {
      provide: McpAuthorizationPartitionResolver,
      useFactory: (options: ResolvedMcpOptions) =>
        options.partitionResolver ?? new DefaultAuthorizationPartitionResolver(),
      inject: [MCP_RESOLVED_OPTIONS],
    },
    RequestStateSealer,
    McpCapabilityInterceptor,
    McpRequestStateInterceptor,
    McpOperationRegistry,
    McpExplorer,
    McpDispatcher,
    McpServerFactory,
    McpHttpEndpoint,
    McpNotifier,
  ],
  exports: [
    MCP_RESOLVED_OPTIONS,
    KeyringManager,
    RequestStateProtector,
    McpAuthorizationPartitionResolver,
    RequestStateSealer,
    McpCapabilityInterceptor,
    McpRequestStateInterceptor,
    McpOperationRegistry,
    McpNotifier,
  ],
})
export class McpModule extends McpConfigurableModuleClass {}
