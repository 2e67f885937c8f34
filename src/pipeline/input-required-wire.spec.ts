import { McpInputRequest } from '../input/mcp-input-request';
import { McpInputRequiredResult } from '../input/mcp-input-required.result';
import { McpSealedInputRequired } from './innermost-outcome';
import { toSealedInputRequired } from './input-required-wire';

describe('toSealedInputRequired', () => {
  it('emits resultType input_required with keyed {method, params} requests and no JSON-RPC envelope', () => {
    const result = McpInputRequiredResult.withInputRequest('roots', McpInputRequest.listRoots());
    const wire = toSealedInputRequired(result, undefined);
    expect(wire).toBeInstanceOf(McpSealedInputRequired);
    expect(JSON.parse(JSON.stringify(wire))).toEqual({
      resultType: 'input_required',
      inputRequests: { roots: { method: 'roots/list', params: {} } },
    });
    expect(JSON.stringify(wire)).not.toMatch(/"jsonrpc"|"id"/);
    expect(Object.isFrozen(wire)).toBe(true);
  });

  it('carries the sealed token, never the plaintext, and omits inputRequests when there are none', () => {
    const result = McpInputRequiredResult.builder().frameworkState({ secret: 'plan' }).build();
    const wire = toSealedInputRequired(result, 'sealed-token');
    expect({ ...wire }).toEqual({ resultType: 'input_required', requestState: 'sealed-token' });
    expect(JSON.stringify(wire)).not.toContain('plan');
  });
});
