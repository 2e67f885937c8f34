import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { McpModuleOptions } from './mcp-module-options.interface';

export const {
  ConfigurableModuleClass: McpConfigurableModuleClass,
  MODULE_OPTIONS_TOKEN: MCP_MODULE_OPTIONS,
} = new ConfigurableModuleBuilder<McpModuleOptions>({ moduleName: 'Mcp' })
  .setClassMethodName('forRoot')
  .setExtras({ isGlobal: true }, (definition, extras) => ({
    ...definition,
    global: extras.isGlobal,
  }))
  .build();
