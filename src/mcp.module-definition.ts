import { ConfigurableModuleBuilder, type DynamicModule, type Provider } from '@nestjs/common';
import type { McpModuleOptions } from './mcp-module-options.interface';
import { sessionsExtensionProviders } from './ext/sessions/sessions.extension';
import { SKILLS_EXTENSION_PROVIDERS } from './ext/skills/skills.extension';
import { TASKS_EXTENSION_PROVIDERS } from './ext/tasks/tasks.extension';

export const {
  ConfigurableModuleClass: McpConfigurableModuleClass,
  MODULE_OPTIONS_TOKEN: MCP_MODULE_OPTIONS,
} = new ConfigurableModuleBuilder<McpModuleOptions>({ moduleName: 'Mcp' })
  .setClassMethodName('forRoot')
  .setExtras({ isGlobal: true }, (definition, extras) => ({
    ...definition,
    global: extras.isGlobal,
    providers: [...(definition.providers ?? []), ...extensionProviders(definition)],
  }))
  .build();

/**
 * The providers of the extensions this `McpModule` composes: tasks and 2025-era sessions unless
 * the options turn one off, and skills when the `skills` option is given. Each extension's providers join this module (so every `McpModule`,
 * global or not, has its own) and install themselves into the core's seams; the core never
 * imports them. Options given to `forRootAsync` are not known yet when the module is composed:
 * there an extension turned off is composed and stays idle.
 */
function extensionProviders(definition: DynamicModule): Provider[] {
  const options = (
    definition.providers?.find(
      (provider) =>
        typeof provider === 'object' &&
        'provide' in provider &&
        provider.provide === MCP_MODULE_OPTIONS &&
        'useValue' in provider,
    ) as { useValue?: McpModuleOptions } | undefined
  )?.useValue;
  const tasks = options?.tasks?.enabled !== false;
  const sessions = options?.sessions?.enabled !== false;
  const skills =
    options === undefined || (options.skills !== undefined && options.skills.enabled !== false);
  return [
    ...(tasks ? TASKS_EXTENSION_PROVIDERS : []),
    ...(sessions ? sessionsExtensionProviders(tasks) : []),
    ...(skills ? SKILLS_EXTENSION_PROVIDERS : []),
  ];
}
