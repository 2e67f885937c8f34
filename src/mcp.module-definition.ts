import { ConfigurableModuleBuilder, type DynamicModule, type Provider } from '@nestjs/common';
import { InvalidModuleOptionsError } from './kit/errors/invalid-module-options.error';
import type { McpModuleOptions } from './mcp-module-options.interface';
import { MCP_EXTENSIONS } from './mcp.extensions';
import type { AnyMcpExtension } from './options/mcp-extension';

const definition = new ConfigurableModuleBuilder<McpModuleOptions>({ moduleName: 'Mcp' })
  .setClassMethodName('forRoot')
  .setExtras(
    { isGlobal: true, extensions: [] as readonly AnyMcpExtension[] },
    (definition, extras) => ({
      ...definition,
      global: extras.isGlobal,
      providers: [
        ...(definition.providers ?? []),
        ...extensionProviders(definition, [...MCP_EXTENSIONS, ...extras.extensions]),
      ],
    }),
  )
  .build();

/**
 * What `McpModule` extends: `forRoot`/`forRootAsync` with `McpModuleOptions`, and the extras
 * `isGlobal` (default `true`) and `extensions` (an application's own, beside the built-in ones).
 * @publicApi
 */
export const McpConfigurableModuleClass = definition.ConfigurableModuleClass;

/** The DI token of the module options as given. @internal */
export const MCP_MODULE_OPTIONS = definition.MODULE_OPTIONS_TOKEN;

/**
 * The providers of the extensions this `McpModule` composes: the built-in list and the
 * application's own (`forRoot({ extensions })`), each unless its options turn it off. Each
 * extension's providers join this module (so every `McpModule`, global or not, has its own) with
 * its resolved options under its token, and install themselves into the core's seams; the core
 * never imports them. Options given to `forRootAsync` are not known yet when the module is
 * composed: there every extension is composed, and one turned off stays idle.
 */
function extensionProviders(
  definition: DynamicModule,
  extensions: readonly AnyMcpExtension[],
): Provider[] {
  const options = (
    definition.providers?.find(
      (provider) =>
        typeof provider === 'object' &&
        'provide' in provider &&
        provider.provide === MCP_MODULE_OPTIONS &&
        'useValue' in provider,
    ) as { useValue?: McpModuleOptions } | undefined
  )?.useValue;
  const ownOptions = (extension: AnyMcpExtension, from: McpModuleOptions | undefined): unknown =>
    extension.configuredOptions ??
    (extension.options && (from as Record<string, unknown> | undefined)?.[extension.options.key]);
  const names = new Set<string>();
  for (const { name } of extensions) {
    if (names.has(name))
      throw new InvalidModuleOptionsError('extensions', `compose the "${name}" extension once`);
    names.add(name);
  }
  const composed = extensions.filter((extension) => {
    if (options === undefined) return true;
    const own = ownOptions(extension, options);
    return extension.enabledBy
      ? extension.enabledBy(own)
      : (own as { enabled?: unknown } | undefined)?.enabled !== false;
  });
  const composedNames = new Set(composed.map(({ name }) => name));
  return composed.flatMap((extension) => [
    ...(extension.options
      ? [
          {
            provide: extension.options.token,
            useFactory: (from: McpModuleOptions) =>
              extension.options?.resolve(ownOptions(extension, from)),
            inject: [MCP_MODULE_OPTIONS],
          },
        ]
      : []),
    ...extension.providers(composedNames),
  ]);
}
