import { Injectable, Module, UseGuards } from '@nestjs/common';
import { McpModule, McpTool } from '../../../src/index';
import { ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import { rawRound, rawToolCall } from '../../utils/mcp';
import { SignedInGuard } from '../../fixtures/enhancers';

/*
 * Lists per caller run an operation's guards only where a guard may apply; an app without a
 * global guard gets its unguarded tools listed without running anything. These are the places a
 * guard can come from, each without any other guard in the app: the class, the method, and
 * `useGlobalGuards` called after the app was created.
 */

@Injectable()
class OpenTools {
  @McpTool({ name: 'open', description: 'No guard anywhere' })
  open(): string {
    return 'open';
  }

  @UseGuards(SignedInGuard)
  @McpTool({ name: 'method_guarded', description: 'A guard on the method' })
  methodGuarded(): string {
    return 'method';
  }
}

@UseGuards(SignedInGuard)
@Injectable()
class ClassGuardedTools {
  @McpTool({ name: 'class_guarded', description: 'A guard on the class' })
  classGuarded(): string {
    return 'class';
  }
}

function appWith(fastPath: boolean) {
  @Module({
    imports: [McpModule.forRoot({ allowEphemeralKey: true, http: { fastPath } })],
    providers: [OpenTools, ClassGuardedTools, SignedInGuard],
  })
  class ListGuardsApp {}
  return ListGuardsApp;
}

async function listedTools(server: TestServer, headers: Record<string, string> = {}) {
  const response = await rawRound(server.url, 'tools/list', {}, { headers });
  expect(response.status).toBe(200);
  return (response.body.result?.tools as { name: string }[]).map((tool) => tool.name);
}

describe.each(ADAPTERS)('lists and guards over %s', (adapter) => {
  describe.each([true, false])('fast path %s', (fastPath) => {
    let plain: TestServer;
    let globallyGuarded: TestServer;

    beforeAll(async () => {
      plain = await startTestServer(adapter, { imports: [appWith(fastPath)] });
      globallyGuarded = await startTestServer(
        adapter,
        { imports: [appWith(fastPath)] },
        '/mcp',
        {},
        (app) => app.useGlobalGuards(new SignedInGuard()),
      );
    });
    afterAll(async () => {
      await plain?.close();
      await globallyGuarded?.close();
    });

    it('lists to an anonymous caller only the tool no guard applies to', async () => {
      expect(await listedTools(plain)).toEqual(['open']);
      expect(await listedTools(plain, { 'x-user': 'alice' })).toEqual([
        'open',
        'method_guarded',
        'class_guarded',
      ]);
    });

    it('answers a forged cursor naming a hidden tool exactly as one naming a tool nobody serves', async () => {
      const cursor = (name: string) => Buffer.from(`tools:${name}`).toString('base64url');
      const answer = async (name: string) => {
        const response = await rawRound(
          plain.url,
          'tools/list',
          { cursor: cursor(name) },
          { id: 9 },
        );
        return { status: response.status, error: response.body.error };
      };
      const unknown = await answer('no_such_tool');
      expect(unknown.error).toEqual({ code: -32602, message: 'Invalid cursor' });
      expect(await answer('class_guarded')).toEqual(unknown);
      expect(await answer('method_guarded')).toEqual(unknown);
      // A caller who sees it continues after it.
      const seen = await rawRound(
        plain.url,
        'tools/list',
        { cursor: cursor('class_guarded') },
        { headers: { 'x-user': 'alice' } },
      );
      expect(seen.body.result?.tools).toEqual([]);
    });

    it('runs a guard added with useGlobalGuards after the app was created', async () => {
      expect(await listedTools(globallyGuarded)).toEqual([]);
      expect(await listedTools(globallyGuarded, { 'x-user': 'alice' })).toEqual([
        'open',
        'method_guarded',
        'class_guarded',
      ]);
      const refused = await rawToolCall(globallyGuarded.url, 'open', {});
      // A caller's list hides it, so a refused call answers as for an unknown tool.
      expect(refused.body.error?.code).toBe(-32602);
      const called = await rawToolCall(
        globallyGuarded.url,
        'open',
        {},
        {
          headers: { 'x-user': 'alice' },
        },
      );
      expect(called.body.result?.content).toEqual([{ type: 'text', text: 'open' }]);
    });
  });
});

describe('a list asked without credentials whose guards hide operations', () => {
  it('is answered, and the log says how many operations it hid (at most every five minutes)', async () => {
    const warnings: string[] = [];
    const logger = {
      log: () => undefined,
      error: () => undefined,
      warn: (message: unknown) => warnings.push(String(message)),
      debug: () => undefined,
      verbose: () => undefined,
    };
    const server = await startTestServer('express', { imports: [appWith(true)] }, '/mcp', {
      logger,
    });
    try {
      const hiding = () => warnings.filter((warning) => warning.includes('hidden by their guards'));
      expect(await listedTools(server, { 'x-user': 'alice' })).toHaveLength(3);
      expect(hiding()).toEqual([]);
      expect(await listedTools(server)).toEqual(['open']);
      expect(await listedTools(server)).toEqual(['open']);
      expect(hiding()).toHaveLength(1);
      expect(hiding()[0]).toContain('answered with 2 operation(s) hidden by their guards');
    } finally {
      await server.close();
    }
  });
});
