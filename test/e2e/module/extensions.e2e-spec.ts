import { Injectable, Module, UseGuards } from '@nestjs/common';
import { McpModule, McpTool } from '../../../src/index';
import { MCP_TASKS_EXTENSION } from '../../../src/entry/tasks';
import { McpTasksService } from '../../../src/ext/tasks/mcp-tasks.service';
import { SessionEndpoint } from '../../../src/ext/sessions/session-endpoint';
import { startTestServer, startupError } from '../../utils/bootstrap';
import { rawRound, rawToolCall } from '../../utils/mcp';
import { openSession, sessionPost, initializeRaw } from '../../utils/session-clients';
import { SignedInGuard } from '../../fixtures/enhancers';
import { serverForSuite } from '../../utils/suite-server';

/*
 * Tasks and 2025-era sessions are extensions: they install themselves into the core's seams
 * (methods, the call divert, listen routes, endpoint routes, capability entries), and an app that
 * turns one off gets none of its providers. A divert never speaks for a tool the caller's lists
 * hide: such a tool answers as an unknown one on both eras, task or not.
 */

const TASKS = { extensions: { [MCP_TASKS_EXTENSION]: {} } };

@Injectable()
class OptionalTaskTools {
  @McpTool({ name: 'report', description: 'A task when the client asks', taskSupport: 'optional' })
  report(): string {
    return 'report ready';
  }
}

@Injectable()
class RequiredTaskTools {
  @McpTool({ name: 'export', description: 'Only as a task', taskSupport: 'required' })
  export(): string {
    return 'exported';
  }
}

@Injectable()
class HiddenTaskTools {
  @UseGuards(SignedInGuard)
  @McpTool({ name: 'secret_export', description: 'Only as a task', taskSupport: 'required' })
  secretExport(): string {
    return 'exported';
  }

  @UseGuards(SignedInGuard)
  @McpTool({ name: 'secret_report', description: 'Maybe a task', taskSupport: 'optional' })
  secretReport(): string {
    return 'reported';
  }
}

function appOf(options: Parameters<typeof McpModule.forRoot>[0], tools: unknown[]) {
  @Module({
    imports: [McpModule.forRoot({ allowEphemeralKey: true, ...options })],
    providers: [...(tools as never[]), SignedInGuard],
  })
  class ExtensionsApp {}
  return ExtensionsApp;
}

describe('extensions', () => {
  describe('with tasks turned off', () => {
    const server = serverForSuite(() =>
      startTestServer('express', {
        imports: [appOf({ tasks: { enabled: false } }, [OptionalTaskTools])],
      }),
    );

    it('creates none of the tasks providers', () => {
      expect(() => server.app.get(McpTasksService, { strict: false })).toThrow();
    });

    it('declares no tasks extension, serves no tasks method, and runs an optional-task tool plainly', async () => {
      const discovered = await rawRound(server.url, 'server/discover', {});
      const capabilities = (discovered.body.result as { capabilities: Record<string, unknown> })
        .capabilities;
      expect(capabilities.extensions ?? {}).not.toHaveProperty([MCP_TASKS_EXTENSION]);
      const get = await rawRound(server.url, 'tasks/get', { taskId: 'x' }, { capabilities: TASKS });
      expect(get.body.error?.code).toBe(-32601);
      const call = await rawToolCall(server.url, 'report', {}, { capabilities: TASKS });
      expect(call.body.result?.resultType).toBe('complete');
      expect(call.text).toContain('report ready');
    });

    it('refuses at startup a tool that runs only as a task', async () => {
      const error = await startupError('express', {
        imports: [appOf({ tasks: { enabled: false } }, [RequiredTaskTools])],
      });
      expect(error?.message).toContain('RequiredTaskTools.export()');
      expect(error?.message).toContain('tasks.enabled: false');
    });
  });

  describe('with tasks on (the default)', () => {
    const server = serverForSuite(() =>
      startTestServer('express', { imports: [appOf({}, [OptionalTaskTools])] }),
    );

    it('declares the tasks extension and answers a call that asks for a task with one', async () => {
      const discovered = await rawRound(server.url, 'server/discover', {});
      const capabilities = (discovered.body.result as { capabilities: Record<string, unknown> })
        .capabilities;
      expect(capabilities.extensions).toHaveProperty([MCP_TASKS_EXTENSION]);
      const call = await rawToolCall(server.url, 'report', {}, { capabilities: TASKS });
      expect(call.body.result?.resultType).toBe('task');
    });
  });

  describe('a 2025-era session whose client declares the 2026 tasks extension', () => {
    const server = serverForSuite(() =>
      startTestServer('express', { imports: [appOf({}, [OptionalTaskTools])] }),
    );

    it('runs a plain tools/call of an optional-task tool, with no 2026 task stub', async () => {
      // The MCP Inspector declares the extension in its 2025-era initialize.
      const sessionId = await openSession(server.url, {}, { elicitation: {}, ...TASKS });
      const call = await sessionPost(
        server.url,
        { id: 3, method: 'tools/call', params: { name: 'report', arguments: {} } },
        sessionId,
      );
      expect(call.status).toBe(200);
      expect(call.messages).toEqual([
        { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'report ready' }] } },
      ]);
    });
  });

  describe('with sessions turned off', () => {
    const server = serverForSuite(() =>
      startTestServer('express', {
        imports: [appOf({ sessions: { enabled: false } }, [OptionalTaskTools])],
      }),
    );

    it('creates none of the session providers and leaves 2025-era traffic to the SDK, which refuses it', async () => {
      expect(() => server.app.get(SessionEndpoint, { strict: false })).toThrow();
      const opened = await initializeRaw(server.url);
      expect(opened.status).toBe(400);
      expect(opened.sessionId).toBeUndefined();
    });
  });

  describe('a tool the caller may not see', () => {
    const server = serverForSuite(() =>
      startTestServer('express', { imports: [appOf({}, [HiddenTaskTools])] }),
    );

    it('answers a 2026-07-28 call, task or not, exactly as a tool nobody serves', async () => {
      for (const capabilities of [{}, TASKS]) {
        const unknown = await rawToolCall(server.url, 'no_such_tool', {}, { capabilities, id: 7 });
        for (const name of ['secret_export', 'secret_report']) {
          const hidden = await rawToolCall(server.url, name, {}, { capabilities, id: 7 });
          expect(hidden.status).toBe(unknown.status);
          expect(hidden.body.error).toEqual({
            ...unknown.body.error,
            message: `Unknown tool: ${name}`,
            data: { name },
          });
        }
      }
    });

    it('answers a 2025-era call with params.task exactly as a tool nobody serves', async () => {
      const sessionId = await openSession(server.url);
      const call = (name: string, task: boolean) =>
        sessionPost(
          server.url,
          {
            id: 5,
            method: 'tools/call',
            params: { name, arguments: {}, ...(task ? { task: { ttl: 60_000 } } : {}) },
          },
          sessionId,
        );
      for (const task of [true, false]) {
        const unknown = await call('no_such_tool', task);
        for (const name of ['secret_export', 'secret_report']) {
          const hidden = await call(name, task);
          expect(hidden.status).toBe(unknown.status);
          expect(hidden.messages).toEqual(
            unknown.messages.map((message) => ({
              ...message,
              error: {
                ...(message.error as object),
                message: `Unknown tool: ${name}`,
                data: { name },
              },
            })),
          );
        }
      }
    });

    it('still runs for a caller who may see it', async () => {
      const call = await rawToolCall(
        server.url,
        'secret_report',
        {},
        { capabilities: TASKS, headers: { 'x-user': 'alice' } },
      );
      expect(call.body.result?.resultType).toBe('task');
    });
  });
});
