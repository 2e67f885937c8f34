import { Logger } from '@nestjs/common';
import { ProtocolError } from '@modelcontextprotocol/server';
import { McpInputRequest } from '../input/mcp-input-request';
import { McpInputRequiredResult } from '../input/mcp-input-required.result';
import { toInputRequiredWire } from './input-required-wire';

describe('toInputRequiredWire', () => {
  it('emits resultType input_required with keyed {method, params} requests and no JSON-RPC envelope', () => {
    const result = McpInputRequiredResult.withInputRequest('roots', McpInputRequest.listRoots());
    const wire = toInputRequiredWire({ result, encodedState: undefined }, 'tools/call x');
    expect(wire).toEqual({
      resultType: 'input_required',
      inputRequests: { roots: { method: 'roots/list', params: {} } },
    });
    expect(JSON.stringify(wire)).not.toMatch(/"jsonrpc"|"id"/);
  });

  it('carries the state the interceptor encoded, and omits inputRequests when there are none', () => {
    expect(
      toInputRequiredWire(
        {
          result: McpInputRequiredResult.builder().frameworkState({ step: 1 }).build(),
          encodedState: 'sealed-token',
        },
        'op',
      ),
    ).toEqual({
      resultType: 'input_required',
      requestState: 'sealed-token',
    });
  });

  it('never sends a state that was not protected: a bare -32603 instead', () => {
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const result = McpInputRequiredResult.builder().frameworkState({ secret: 'plan' }).build();
      let thrown: unknown;
      try {
        toInputRequiredWire({ result, encodedState: undefined }, 'op');
      } catch (caught) {
        thrown = caught;
      }
      expect(thrown).toBeInstanceOf(ProtocolError);
      expect((thrown as ProtocolError).code).toBe(-32603);
      expect((thrown as Error).message).not.toContain('plan');
    } finally {
      error.mockRestore();
    }
  });
});
