import type { McpOperationRegistry } from '../../operations/discovery/mcp-operation.registry';
import { AnonymousAccess } from './anonymous-access';

/** A registry of one public tool and one tool that needs a scope. */
function registry(withPublic: boolean): McpOperationRegistry {
  const tools = {
    status: { name: 'status', profile: { public: withPublic, scopes: [] } },
    pay: { name: 'pay', profile: { public: false, scopes: ['payments:write'] } },
  };
  return {
    generation: 1,
    getTools: () => Object.values(tools),
    getPrompts: () => [],
    getFixedResources: () => [],
    getTemplateResources: () => [],
    findTool: (name: string) => tools[name as keyof typeof tools],
    findPrompt: () => undefined,
    findResource: () => undefined,
    findTemplate: () => undefined,
  } as unknown as McpOperationRegistry;
}

const call = (name: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: {} },
});

describe('AnonymousAccess', () => {
  it('lets a caller without a token make nothing when no operation is public, naming the scopes of the one it calls', () => {
    const access = new AnonymousAccess(registry(false));
    for (const message of [
      call('status'),
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      undefined,
    ])
      expect(access.of(message).allowed).toBe(false);
    expect(access.of(call('pay'))).toEqual({ allowed: false, scopes: ['payments:write'] });
  });

  it('with a public operation: calls of it, the lists, notifications and answers, a session stream; nothing else', () => {
    const access = new AnonymousAccess(registry(true));
    expect(access.of(call('status')).allowed).toBe(true);
    expect(access.of({ jsonrpc: '2.0', id: 2, method: 'tools/list' }).allowed).toBe(true);
    expect(access.of({ jsonrpc: '2.0', method: 'notifications/initialized' }).allowed).toBe(true);
    expect(access.of({ jsonrpc: '2.0', id: 'q1', result: { action: 'accept' } }).allowed).toBe(
      true,
    );
    expect(access.of(undefined).allowed).toBe(true);
    expect(access.of(call('pay')).allowed).toBe(false);
    expect(access.of(call('nobody-serves-this')).allowed).toBe(false);
    expect(access.of({ jsonrpc: '2.0', id: 3, method: 'tasks/list' }).allowed).toBe(false);
  });

  it('never takes a batch or a message without a method or an answer for an answer', () => {
    const access = new AnonymousAccess(registry(true));
    expect(access.of([call('pay')]).allowed).toBe(false);
    expect(access.of([{ jsonrpc: '2.0', id: 1, result: {} }]).allowed).toBe(false);
    expect(access.of({ jsonrpc: '2.0', id: 1 }).allowed).toBe(false);
    expect(access.of(null).allowed).toBe(false);
  });
});
