import type { McpModuleOptions, McpOperationContext } from '../../../../src/index';

/** What every instance of the fenced fleet shares: the keyring (from KEYRING) and who the caller is. */
export function fencedToolsOptions(): Partial<McpModuleOptions> {
  return {
    serverInfo: { name: 'fenced-fleet', version: '1.0.0' },
    keyring: JSON.parse(process.env.KEYRING as string) as McpModuleOptions['keyring'],
    identity: {
      partitionResolver: {
        resolve: (ctx: McpOperationContext) =>
          String(ctx.http.request.headers['x-user'] ?? 'detached'),
      },
    },
  };
}
