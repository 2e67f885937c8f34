import { Injectable, Module, UseGuards, type CanActivate, type Provider } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { IsString } from 'class-validator';
import {
  McpArgs,
  McpModule,
  McpPrompt,
  McpRequestStateMode,
  McpResource,
  McpTool,
} from '../../../src/index';
import { CapturingLogger, newKeyring as keyringOf } from '../../fixtures/sample-app';
import { ADAPTERS, startTestServer, startupError, type AdapterName } from '../../utils/bootstrap';
import { rawToolCall } from '../../utils/mcp';
import { sleep } from '../../utils/wait';

class UndecoratedDto {
  name!: string;
}

class DecoratedDto {
  @IsString()
  name!: string;
}

@Injectable()
class StartupTools {
  @McpTool({ description: 'Takes a DTO class without class-validator rules' })
  undecorated(@McpArgs() args: UndecoratedDto) {
    return `hello ${String(args.name)}`;
  }

  @McpTool({ description: 'Takes a decorated DTO' })
  decorated(@McpArgs() args: DecoratedDto) {
    return `hello ${args.name}`;
  }

  @McpPrompt({ description: 'A prompt' })
  greeting() {
    return 'Say hello';
  }

  @McpResource({ uri: 'test://static', description: 'A resource' })
  staticResource() {
    return 'static';
  }

  @McpResource({ uriTemplate: 'test://items/{id}', description: 'A template' })
  item() {
    return 'item';
  }
}

@Injectable()
class UntypedTools {
  @McpTool({ description: 'Built without decorator metadata' })
  untyped(@McpArgs() args: DecoratedDto) {
    return `hello ${args.name}`;
  }
}
// What a build without `emitDecoratorMetadata` (esbuild, tsx, SWC defaults) leaves out.
Reflect.deleteMetadata('design:paramtypes', UntypedTools.prototype, 'untyped');

/** A keyring of one fresh key, as the module option takes it. */
function newKeyring(id = `k-${Math.random().toString(36).slice(2, 8)}`) {
  const { active, keys } = keyringOf([id]);
  return { active, keys };
}

/** An app on `adapter` serving `providers` with a keyring of its own, and the logger it logs to. */
async function startLogged(adapter: AdapterName, providers: Provider[]) {
  const logger = new CapturingLogger();
  const server = await startTestServer(
    adapter,
    { imports: [McpModule.forRoot({ keyring: newKeyring() })], providers },
    '/mcp',
    { logger },
  );
  return { server, logger };
}

/** An authenticating guard an app put on its tools' class instead of making it global. */
@Injectable()
class ClassAuthGuard implements CanActivate {
  canActivate(): boolean {
    return true;
  }
}

@UseGuards(ClassAuthGuard)
@Injectable()
class ClassGuardedTools {
  @McpTool({ name: 'guarded_report', description: 'Guarded on its class' })
  report(): string {
    return 'report';
  }
}

describe('sessions that cannot learn their caller', () => {
  const sessionWarnings = async (metadata: Parameters<typeof startTestServer>[1]) => {
    const logger = new CapturingLogger();
    const server = await startTestServer('express', metadata, '/mcp', { logger });
    await server.close();
    return logger.lines
      .filter((line) => line.level === 'warn' && line.text.includes('2025-era sessions are owned'))
      .map((line) => line.text);
  };

  it('are named at startup, with the fix, when only class or method guards authenticate', async () => {
    const warnings = await sessionWarnings({
      imports: [McpModule.forRoot({ keyring: newKeyring() })],
      providers: [ClassGuardedTools, ClassAuthGuard],
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('guarded_report');
    expect(warnings[0]).toContain('APP_GUARD');
  });

  it('are not mentioned when a global guard authenticates, or nothing is guarded', async () => {
    expect(
      await sessionWarnings({
        imports: [McpModule.forRoot({ keyring: newKeyring() })],
        providers: [
          ClassGuardedTools,
          ClassAuthGuard,
          { provide: APP_GUARD, useClass: ClassAuthGuard },
        ],
      }),
    ).toEqual([]);
    expect(
      await sessionWarnings({
        imports: [McpModule.forRoot({ keyring: newKeyring() })],
        providers: [StartupTools],
      }),
    ).toEqual([]);
  });
});

describe.each(ADAPTERS)('mistakes named at startup, %s', (adapter) => {
  it('says what it serves, where, on which adapter', async () => {
    const { server, logger } = await startLogged(adapter, [StartupTools]);
    try {
      expect(logger.lines.map((line) => line.text).join('\n')).toContain(
        `Serving MCP at /mcp (${adapter}): 2 tools, 1 prompt, 2 resources (1 of them templates)`,
      );
    } finally {
      await server.close();
    }
  });

  it('names a DTO without class-validator rules, and a build that emitted no parameter types', async () => {
    const { server, logger } = await startLogged(adapter, [StartupTools, UntypedTools]);
    try {
      const warnings = logger.lines.filter((line) => line.level === 'warn').map((l) => l.text);
      expect(warnings).toEqual(
        expect.arrayContaining([
          expect.stringContaining(
            'StartupTools.undecorated() takes UndecoratedDto, which has no class-validator decorators',
          ),
          expect.stringContaining(
            'UntypedTools.untyped() takes @McpArgs() but the build emitted no parameter types',
          ),
        ]),
      );
      expect(warnings.join('\n')).toContain('"emitDecoratorMetadata"');
      expect(warnings.join('\n')).toContain('ValidationPipe({ whitelist: true })');
      expect(warnings.join('\n')).not.toContain('StartupTools.decorated()');
    } finally {
      await server.close();
    }
  });

  it.each([
    ['validation.failOnGap', { validation: { failOnGap: true } }, {}],
    ['NODE_ENV=production', {}, { NODE_ENV: 'production' }],
  ])(
    'fails startup instead of warning with %s: arguments that cannot be validated are refused',
    async (_how, options, env) => {
      const saved = process.env.NODE_ENV;
      Object.assign(process.env, env);
      try {
        for (const tools of [StartupTools, UntypedTools]) {
          const error = await startupError(adapter, {
            imports: [McpModule.forRoot({ keyring: newKeyring(), ...options })],
            providers: [tools],
          });
          expect(error?.message).toMatch(
            tools === StartupTools
              ? /StartupTools\.undecorated\(\).*no class-validator decorators/
              : /UntypedTools\.untyped\(\).*emitted no parameter types/,
          );
        }
      } finally {
        if (saved === undefined) delete process.env.NODE_ENV;
        else process.env.NODE_ENV = saved;
      }
    },
  );

  it('refuses a second McpModule on the same endpoint, naming both modules', async () => {
    @Module({ imports: [McpModule.forRoot({ keyring: newKeyring() })], providers: [StartupTools] })
    class OrdersModule {}
    @Module({ imports: [McpModule.forRoot({ keyring: newKeyring() })] })
    class BillingModule {}
    const error = await startupError(adapter, { imports: [OrdersModule, BillingModule] });
    expect(error?.message).toMatch(
      /McpModule is registered more than once for the endpoint \/mcp \(imported by (OrdersModule and BillingModule|BillingModule and OrdersModule)\)/,
    );
    expect(error?.message).toContain('give each its own `endpoint`');
  });

  it('serves two McpModules on two endpoints', async () => {
    @Module({ imports: [McpModule.forRoot({ endpoint: '/a', keyring: newKeyring() })] })
    class AModule {}
    @Module({ imports: [McpModule.forRoot({ endpoint: '/b', keyring: newKeyring() })] })
    class BModule {}
    await expect(startupError(adapter, { imports: [AModule, BModule] })).resolves.toBeUndefined();
  });

  describe('in production', () => {
    const environment = process.env.NODE_ENV;
    beforeEach(() => (process.env.NODE_ENV = 'production'));
    afterEach(() => (process.env.NODE_ENV = environment));

    it('fails to start without a keyring, saying how to share one', async () => {
      const error = await startupError(adapter, {
        imports: [McpModule.forRoot({})],
        providers: [StartupTools],
      });
      expect(error?.message).toContain(
        'option "keyring": is required in production (NODE_ENV=production)',
      );
      expect(error?.message).toContain('allowEphemeralKey: true');
    });

    it('starts with an ephemeral key when allowEphemeralKey says so, or with a keyring', async () => {
      await expect(
        startupError(adapter, {
          // StartupTools has an argument DTO without rules, which production refuses by default.
          imports: [
            McpModule.forRoot({ allowEphemeralKey: true, validation: { failOnGap: false } }),
          ],
          providers: [StartupTools],
        }),
      ).resolves.toBeUndefined();
      await expect(
        startupError(adapter, {
          imports: [McpModule.forRoot({ keyring: newKeyring(), validation: { failOnGap: false } })],
          providers: [StartupTools],
        }),
      ).resolves.toBeUndefined();
    });
  });

  it('explains a state sealed under a key this instance lacks, once per key id', async () => {
    @Injectable()
    class FlowTools {
      @McpTool({ description: 'Asks once', requestState: McpRequestStateMode.FRAMEWORK_PROTECTED })
      flow() {
        return 'done';
      }
    }
    const sealing = newKeyring();
    const { server: other, logger } = await startLogged(adapter, [FlowTools]);
    try {
      const kid = sealing.active;
      const state = `4_${Date.now()}_${Date.now() + 60_000}_1.${Buffer.from(kid).toString('base64url')}.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`;
      for (let i = 0; i < 3; i++) {
        const refused = await rawToolCall(other.url, 'flow', {}, { requestState: state });
        expect(refused.body.error).toEqual({ code: -32602, message: 'Invalid request state' });
      }
      await sleep(10);
      const explained = logger.lines.filter((line) =>
        line.text.includes(`sealed under key "${kid}", which this instance does not hold`),
      );
      expect(explained).toHaveLength(1);
      expect(explained[0].text).toMatch(/must share a keyring.*fingerprint is [0-9a-f]{64}/);
      expect(explained[0].text).not.toContain(state);
    } finally {
      await other.close();
    }
  });
});
