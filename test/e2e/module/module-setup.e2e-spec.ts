import { Injectable, Module } from '@nestjs/common';
import type { Client } from '@modelcontextprotocol/client';
import {
  DefaultAuthorizationPartitionResolver,
  KeyringManager,
  McpAuthorizationPartitionResolver,
  McpModule,
  McpTool,
  RequestStateProtector,
  type McpModuleOptions,
} from '../../../src/index';
import { SigningProtectorModule, SigningStateProtector } from '../../fixtures/signing-protector';
import { CatalogModule } from '../../fixtures/catalog.fixtures';
import { DuplicateToolsModule } from './duplicate.fixtures';
import {
  ALL_ADAPTERS,
  startTestServer,
  startupError,
  type TestServer,
} from '../../utils/bootstrap';
import { connectClient } from '../../utils/mcp';

/** A config source living in its own module, as `ConfigService` would. */
@Injectable()
class ServerSettings {
  readonly name = 'async-configured';
  readonly endpoint = '/rpc/mcp';
}

@Module({ providers: [ServerSettings], exports: [ServerSettings] })
class SettingsModule {}

@Injectable()
class ScopedTools {
  @McpTool({ name: 'scoped_ping', description: 'Answers from a feature module' })
  ping(): string {
    return 'scoped pong';
  }
}

/** An options factory class, as `forRootAsync({ useClass })` and `useExisting` expect. */
@Injectable()
class McpOptionsFactory {
  create(): McpModuleOptions {
    return { serverInfo: { name: 'class-configured', version: '2.0.0' } };
  }
}

@Module({ providers: [McpOptionsFactory], exports: [McpOptionsFactory] })
class OptionsFactoryModule {}

describe.each(ALL_ADAPTERS)('McpModule setup over %s', (adapter) => {
  it('fails startup on duplicate operation names, naming both declarations', async () => {
    const error = await startupError(adapter, {
      imports: [McpModule.forRoot({}), DuplicateToolsModule],
    });
    expect(error?.name).toBe('DuplicateOperationError');
    expect(error?.message).toContain('"lookup"');
    expect(error?.message).toContain('InventoryTools.findItem()');
    expect(error?.message).toContain('CustomerTools.findCustomer()');
  });

  it.each<[string, McpModuleOptions]>([
    ['http.maxRequestBodyBytes', { http: { maxRequestBodyBytes: -1 } }],
    ['allowedHosts', { allowedHosts: ['api.example.com'] } as McpModuleOptions],
    ['endpoint', { endpoint: 'no-leading-slash' }],
    [
      'cacheHints.tools/list.ttlMs',
      { cacheHints: { 'tools/list': { ttlMs: -5, cacheScope: 'public' } } },
    ],
  ])('fails startup on an invalid %s option, naming it', async (option, options) => {
    const error = await startupError(adapter, {
      imports: [McpModule.forRoot(options), CatalogModule],
    });
    expect(error?.name).toBe('InvalidModuleOptionsError');
    expect(error?.message).toContain(`"${option}"`);
  });

  describe('forRootAsync with useFactory', () => {
    let server: TestServer;
    let client: Client;

    beforeAll(async () => {
      server = await startTestServer(
        adapter,
        {
          imports: [
            McpModule.forRootAsync({
              imports: [SettingsModule],
              inject: [ServerSettings],
              useFactory: (settings: ServerSettings) => ({
                serverInfo: { name: settings.name, version: '9.9.9' },
                endpoint: settings.endpoint,
              }),
            }),
            CatalogModule,
          ],
        },
        '/rpc/mcp',
      );
      client = await connectClient(server.url);
    });

    afterAll(async () => {
      await client?.close();
      await server?.close();
    });

    it('serves on the factory-provided endpoint with the factory-provided server info', async () => {
      expect(client.getServerVersion()).toEqual({ name: 'async-configured', version: '9.9.9' });
      const result = await client.callTool({ name: 'ping' });
      expect(result.content).toEqual([{ type: 'text', text: 'pong' }]);
    });
  });

  it.each([
    ['useClass', McpModule.forRootAsync({ useClass: McpOptionsFactory })],
    [
      'useExisting',
      McpModule.forRootAsync({ imports: [OptionsFactoryModule], useExisting: McpOptionsFactory }),
    ],
  ])('forRootAsync with %s takes the options from the factory class', async (_kind, mcpModule) => {
    const server = await startTestServer(adapter, { imports: [mcpModule, CatalogModule] });
    const client = await connectClient(server.url);
    try {
      expect(client.getServerVersion()).toEqual({ name: 'class-configured', version: '2.0.0' });
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('with isGlobal: false, serves operations of feature modules that import the same McpModule', async () => {
    const mcp = McpModule.forRoot({
      isGlobal: false,
      serverInfo: { name: 'scoped', version: '1.0.0' },
    });
    @Module({ imports: [mcp], providers: [ScopedTools] })
    class ScopedFeatureModule {}
    const server = await startTestServer(adapter, { imports: [mcp, ScopedFeatureModule] });
    const client = await connectClient(server.url);
    try {
      const result = await client.callTool({ name: 'scoped_ping' });
      expect(result.content).toEqual([{ type: 'text', text: 'scoped pong' }]);
    } finally {
      await client.close();
      await server.close();
    }
  });

  describe('protection providers from the application', () => {
    it.each<[string, object]>([
      ['useExisting', { provide: RequestStateProtector, useExisting: SigningStateProtector }],
      [
        'useFactory with an injected dependency',
        {
          provide: RequestStateProtector,
          useFactory: (signing: SigningStateProtector) => signing,
          inject: [SigningStateProtector],
        },
      ],
    ])(
      'uses a RequestStateProtector provided with %s in a feature module, with no ephemeral key',
      async (_how, provider) => {
        @Module({ imports: [SigningProtectorModule], providers: [provider as never] })
        class SecurityModule {}
        const server = await startTestServer(adapter, {
          imports: [McpModule.forRoot({}), SecurityModule, CatalogModule],
        });
        try {
          expect(server.app.get(KeyringManager).snapshot()).toMatchObject({
            activeKeyId: undefined,
            keys: [],
            ephemeral: false,
          });
        } finally {
          await server.close();
        }
      },
    );

    it('without a custom protector, seals with an ephemeral key and says so', async () => {
      const server = await startTestServer(adapter, {
        imports: [McpModule.forRoot({}), CatalogModule],
      });
      try {
        expect(server.app.get(KeyringManager).snapshot()).toMatchObject({ ephemeral: true });
      } finally {
        await server.close();
      }
    });

    it('fails startup when the options and the application provide different protectors', async () => {
      const error = await startupError(adapter, {
        imports: [
          McpModule.forRoot({ requestState: { protector: new SigningStateProtector() } }),
          SigningProtectorModule,
          CatalogModule,
        ],
        providers: [{ provide: RequestStateProtector, useExisting: SigningStateProtector }],
      });
      expect(error?.name).toBe('InvalidModuleOptionsError');
      expect(error?.message).toContain('"requestState.protector"');
      expect(error?.message).toContain('keep one');
    });

    it('fails startup when two modules provide different partition resolvers, naming both', async () => {
      @Module({
        providers: [
          {
            provide: McpAuthorizationPartitionResolver,
            useValue: new DefaultAuthorizationPartitionResolver('sub'),
          },
        ],
      })
      class TenantsModule {}
      @Module({
        providers: [
          {
            provide: McpAuthorizationPartitionResolver,
            useValue: new DefaultAuthorizationPartitionResolver('email'),
          },
        ],
      })
      class AccountsModule {}
      const error = await startupError(adapter, {
        imports: [McpModule.forRoot({}), TenantsModule, AccountsModule, CatalogModule],
      });
      expect(error?.name).toBe('InvalidModuleOptionsError');
      expect(error?.message).toContain('TenantsModule');
      expect(error?.message).toContain('AccountsModule');
    });
  });
});
