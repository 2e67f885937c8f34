import { handlerArgsOf, testOperationCall } from './operation-call.spec-helper';
import { McpParamsFactory } from './mcp-params.factory';
import { McpParamtype } from './mcp-paramtype.enum';

const NAMES = [...Object.getOwnPropertyNames(Object.prototype), '__proto__', 'prototype'];

function handlerArgs(args: Record<string, unknown>): unknown[] {
  return handlerArgsOf(testOperationCall({ args }));
}

describe('McpParamsFactory', () => {
  const factory = new McpParamsFactory();

  it('gives @McpArgs() the whole arguments and @McpArgs(name) one of them', () => {
    const args = { title: 'Hello' };
    expect(factory.exchangeKeyForValue(McpParamtype.ARGS, undefined, handlerArgs(args))).toBe(args);
    expect(factory.exchangeKeyForValue(McpParamtype.ARGS, 'title', handlerArgs(args))).toBe(
      'Hello',
    );
    expect(
      factory.exchangeKeyForValue(McpParamtype.ARGS, 'body', handlerArgs(args)),
    ).toBeUndefined();
  });

  it.each(NAMES)('gives @McpArgs("%s") only an argument the client sent', (name) => {
    expect(factory.exchangeKeyForValue(McpParamtype.ARGS, name, handlerArgs({}))).toBeUndefined();
    const sent = Object.fromEntries([[name, 'x']]) as Record<string, unknown>;
    expect(factory.exchangeKeyForValue(McpParamtype.ARGS, name, handlerArgs(sent))).toBe('x');
  });

  it('reads members a validated DTO instance declares', () => {
    class Note {
      title = 'Hello';
      get shout(): string {
        return this.title.toUpperCase();
      }
    }
    const args = new Note() as unknown as Record<string, unknown>;
    expect(factory.exchangeKeyForValue(McpParamtype.ARGS, 'shout', handlerArgs(args))).toBe(
      'HELLO',
    );
    expect(
      factory.exchangeKeyForValue(McpParamtype.ARGS, 'toString', handlerArgs(args)),
    ).toBeUndefined();
  });

  it('gives the validated arguments and the opened context once the steps recorded them', () => {
    const call = testOperationCall({ args: { title: 5 } });
    const validated = { title: 'five' };
    call.recordValidatedArgs(validated);
    expect(factory.exchangeKeyForValue(McpParamtype.ARGS, undefined, handlerArgsOf(call))).toBe(
      validated,
    );
    expect(factory.exchangeKeyForValue(McpParamtype.CONTEXT, undefined, handlerArgsOf(call))).toBe(
      call.context,
    );
    expect(() => call.recordValidatedArgs({})).toThrow(/recorded twice/);
  });
});
