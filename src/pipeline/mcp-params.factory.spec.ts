import { McpOperationCall } from './mcp-operation-call';
import { McpRequestStateMode } from '../input/mcp-request-state-mode.enum';
import { createTestRequestContext } from '../testing/create-test-request-context';
import { McpParamsFactory } from './mcp-params.factory';
import { McpParamtype } from './mcp-paramtype.enum';

const NAMES = [...Object.getOwnPropertyNames(Object.prototype), '__proto__', 'prototype'];

function handlerArgs(args: Record<string, unknown>): unknown[] {
  const call = new McpOperationCall(
    'operation',
    args,
    {},
    {
      declarations: [],
      stateMode: McpRequestStateMode.NONE,
      singleUse: false,
      replay: false,
      argumentsValidator: undefined,
    },
    () => createTestRequestContext(),
  );
  return [{}, {}, undefined, call];
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
});
