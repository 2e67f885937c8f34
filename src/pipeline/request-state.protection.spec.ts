import { ProtocolError } from '@modelcontextprotocol/server';
import { parse } from 'lossless-json';
import type { McpInputResponse } from '../input/mcp-input-response';
import { resolveMcpOptions } from '../mcp-options.resolver';
import { McpOperationCall } from './mcp-operation-call';
import { createTestRequestContext } from '../testing/create-test-request-context';
import { RequestStateProtection } from './request-state.protection';
import { McpRequestStateMode } from '../input/mcp-request-state-mode.enum';
import type { ConsumedStateStoreDelegate } from '../stores/one-time/consumed-state-store.delegate';
import type { PartitionResolverDelegate } from '../identity/partition-resolver.delegate';
import type { OpenedRequestState, RequestStateSealer } from '../state/request-state.sealer';

const NAMES = [...Object.getOwnPropertyNames(Object.prototype), '__proto__', 'prototype'];
const DECLINE = { action: 'decline' };
const ROOTS = { roots: [] };

/** The asked kinds as the sealer reads them back: parsed JSON, where "__proto__" is a key. */
function askedKinds(json: string): OpenedRequestState['askedKinds'] {
  return parse(json) as OpenedRequestState['askedKinds'];
}

/** Runs one framework-protected round whose state opens with `asked`, and returns its call. */
async function retry(
  inputResponses: unknown,
  asked: OpenedRequestState['askedKinds'],
): Promise<McpOperationCall> {
  const sealer = {
    openNow: () =>
      Promise.resolve({
        header: { v: 1, iat: 0, exp: 0, r: 1, rid: 0 },
        value: {},
        askedKinds: asked,
      }),
  } as unknown as RequestStateSealer;
  const partitions = {
    resolve: () => Promise.resolve('anonymous'),
  } as unknown as PartitionResolverDelegate;
  const protection = new RequestStateProtection(
    resolveMcpOptions(),
    sealer,
    partitions,
    {} as ConsumedStateStoreDelegate,
  );
  const call = new McpOperationCall(
    'operation',
    {},
    { name: 'flow', requestState: 'sealed', inputResponses },
    {
      declarations: [],
      stateMode: McpRequestStateMode.FRAMEWORK_PROTECTED,
      singleUse: false,
      replay: false,
      argumentsValidator: undefined,
    },
    () => createTestRequestContext(),
  );
  await protection.open(call);
  return call;
}

describe('RequestStateProtection input responses', () => {
  const approvalAsked = askedKinds('{"approval":"elicitation"}');

  it.each(NAMES)('keeps an unasked "%s" response apart, never as an answer', async (name) => {
    const call = await retry(Object.fromEntries([[name, DECLINE]]), approvalAsked);
    expect(call.responses.find(name)).toBeUndefined();
    expect(call.responses.find('approval')).toBeUndefined();
    expect(call.responses.unexpectedKeys).toEqual([name]);
    expect(call.responses.asMap().get(name)).toMatchObject({ kind: 'elicitation' });
  });

  it.each(NAMES)('answers an invalid "%s" response with -32602 naming the key', async (name) => {
    const failure = await retry(
      Object.fromEntries([[name, { action: 'maybe' }]]),
      approvalAsked,
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ProtocolError);
    expect(failure).toMatchObject({
      code: -32602,
      message: `Invalid params: input response "${name}" is not a valid result`,
      data: { key: name },
    });
  });

  it.each(NAMES)(
    'reads a "%s" response the previous round asked for, as the kind asked',
    async (name) => {
      const asked = askedKinds(JSON.stringify(Object.fromEntries([[name, 'roots']])));
      const call = await retry(Object.fromEntries([[name, ROOTS]]), asked);
      expect(call.responses.find(name)).toEqual<McpInputResponse>({ kind: 'roots', roots: [] });

      const wrongKind = await retry(Object.fromEntries([[name, DECLINE]]), asked).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(wrongKind).toMatchObject({ code: -32602, data: { key: name } });
    },
  );
});
