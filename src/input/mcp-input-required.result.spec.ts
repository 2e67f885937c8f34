import { instanceToPlain } from 'class-transformer';
import { LosslessNumber } from 'lossless-json';
import { InvalidInputRequestError } from './invalid-input-request.error';
import { McpInputRequest } from './mcp-input-request';
import { McpInputRequiredResult } from './mcp-input-required.result';

describe('McpInputRequiredResult', () => {
  let approval: McpInputRequest;

  beforeAll(() => {
    approval = McpInputRequest.elicitForm({
      message: 'Approve?',
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
    });
  });

  it('withInputRequest carries one keyed request and no state', () => {
    const result = McpInputRequiredResult.withInputRequest('approval', approval);
    expect([...result.inputRequests.keys()]).toEqual(['approval']);
    expect(result.inputRequests.get('approval')).toBe(approval);
    expect(result.state).toBeUndefined();
    expect(result.frameworkState).toBeUndefined();
    expect(result.applicationState).toBeUndefined();
  });

  it('keeps requests in insertion order', () => {
    const result = McpInputRequiredResult.builder()
      .inputRequest('z', approval)
      .inputRequest('a', McpInputRequest.listRoots())
      .build();
    expect([...result.inputRequests.keys()]).toEqual(['z', 'a']);
  });

  it.each(['', undefined, 3])('refuses the key %p', (key) => {
    expect(() => McpInputRequiredResult.builder().inputRequest(key as string, approval)).toThrow(
      InvalidInputRequestError,
    );
  });

  it('refuses a duplicate key', () => {
    const builder = McpInputRequiredResult.builder().inputRequest('k', approval);
    expect(() => builder.inputRequest('k', McpInputRequest.listRoots())).toThrow(
      /Duplicate input request key "k"/,
    );
  });

  it('needs at least one request or a state', () => {
    expect(() => McpInputRequiredResult.builder().build()).toThrow(InvalidInputRequestError);
    expect(
      McpInputRequiredResult.builder().frameworkState({ step: 1 }).build().frameworkState,
    ).toEqual({ step: 1 });
    expect(
      McpInputRequiredResult.builder().applicationState('opaque').build().applicationState,
    ).toBe('opaque');
  });

  it('carries framework state only with a state and no requests, or both', () => {
    const result = McpInputRequiredResult.builder()
      .inputRequest('approval', approval)
      .frameworkState({ step: 1 })
      .build();
    expect(result.state).toEqual({ mode: 'framework', value: { step: 1 } });
    expect(result.applicationState).toBeUndefined();
  });

  it('lets the last state setter win', () => {
    const framework = McpInputRequiredResult.builder()
      .applicationState('opaque')
      .frameworkState({ step: 2 })
      .build();
    expect(framework.state).toEqual({ mode: 'framework', value: { step: 2 } });
    expect(framework.applicationState).toBeUndefined();
    const application = McpInputRequiredResult.builder()
      .frameworkState({ step: 2 })
      .applicationState('opaque')
      .build();
    expect(application.state).toEqual({ mode: 'application', value: 'opaque' });
    expect(application.frameworkState).toBeUndefined();
    const replaced = McpInputRequiredResult.builder().frameworkState(1).frameworkState(2).build();
    expect(replaced.frameworkState).toBe(2);
  });

  it('accepts falsy JSON framework states', () => {
    for (const value of [null, 0, false, '']) {
      expect(McpInputRequiredResult.builder().frameworkState(value).build().state).toEqual({
        mode: 'framework',
        value,
      });
    }
  });

  it('refuses an undefined framework state and an empty or non-string application state', () => {
    expect(() => McpInputRequiredResult.builder().frameworkState(undefined as never)).toThrow(
      InvalidInputRequestError,
    );
    expect(() => McpInputRequiredResult.builder().applicationState('')).toThrow(
      InvalidInputRequestError,
    );
    expect(() => McpInputRequiredResult.builder().applicationState(5 as never)).toThrow(
      InvalidInputRequestError,
    );
  });

  it('is immutable: frozen result, deep-frozen copy of the framework state, a snapshot of the requests', () => {
    const state = { step: 1, items: [{ id: 'a' }], amount: new LosslessNumber('3.50') };
    const builder = McpInputRequiredResult.builder()
      .inputRequest('approval', approval)
      .frameworkState(state);
    const result = builder.build();
    expect(Object.isFrozen(result)).toBe(true);
    const frozen = result.frameworkState as typeof state;
    expect(Object.isFrozen(frozen)).toBe(true);
    expect(Object.isFrozen(frozen.items)).toBe(true);
    expect(Object.isFrozen(frozen.items[0])).toBe(true);
    state.items[0].id = 'changed';
    expect(frozen.items[0].id).toBe('a');
    expect(frozen.amount).toBeInstanceOf(LosslessNumber);
    expect(frozen.amount.value).toBe('3.50');
    builder.inputRequest('later', McpInputRequest.listRoots());
    expect([...result.inputRequests.keys()]).toEqual(['approval']);
  });

  it('serialises input requests in their wire form, without jsonrpc or id', () => {
    const result = McpInputRequiredResult.builder()
      .inputRequest('approval', approval)
      .inputRequest('roots', McpInputRequest.listRoots())
      .build();
    const wire = JSON.parse(JSON.stringify(Object.fromEntries(result.inputRequests))) as Record<
      string,
      Record<string, unknown>
    >;
    expect(wire).toEqual({
      approval: {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: 'Approve?',
          requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
        },
      },
      roots: { method: 'roots/list', params: {} },
    });
    for (const entry of Object.values(wire)) {
      expect(entry).not.toHaveProperty('jsonrpc');
      expect(entry).not.toHaveProperty('id');
    }
  });
});

describe('McpInputRequiredResult serialization', () => {
  it('never exposes its state to JSON, spreads or class-transformer', () => {
    const result = McpInputRequiredResult.builder().frameworkState({ secret: 'plan-b' }).build();
    expect(result.frameworkState).toEqual({ secret: 'plan-b' });
    expect(JSON.stringify(result)).not.toContain('plan-b');
    expect(JSON.stringify({ ...result })).not.toContain('plan-b');
    expect(JSON.stringify(instanceToPlain(result))).not.toContain('plan-b');
  });
});

describe('McpInputRequiredResult typing', () => {
  interface Checkout {
    step: number;
    items: { sku: string; quantity: number }[];
    note?: string;
  }

  it('accepts interfaces and plain classes as framework state', () => {
    class Progress {
      constructor(readonly done: number) {}
    }
    const checkout: Checkout = { step: 1, items: [{ sku: 'A-1', quantity: 2 }] };
    const result = McpInputRequiredResult.builder().frameworkState(checkout).build();
    expect(result.frameworkState).toEqual(checkout);
    expect(
      McpInputRequiredResult.builder().frameworkState(new Progress(3)).build().frameworkState,
    ).toEqual({ done: 3 });
  });

  it('rejects state that is not JSON at compile time', () => {
    const withFunction = { step: 1, run: () => 1 };
    // @ts-expect-error functions are not JSON
    expect(() => McpInputRequiredResult.builder().frameworkState(withFunction)).toBeDefined();
  });
});
