import type { KeyringRecordIntegrity } from '../keyring/record-integrity';
import type { McpTelemetry } from '../observability/mcp-telemetry.service';
import { ProtocolError } from '@modelcontextprotocol/server';
import { parse } from 'lossless-json';
import { lastValueFrom, of } from 'rxjs';
import type { McpInputResponse } from '../input/mcp-input-response';
import { McpInputRequest } from '../input/mcp-input-request';
import { McpInputRequiredResult } from '../input/mcp-input-required.result';
import { McpRequestStateMode } from '../input/mcp-request-state-mode.enum';
import type { CallerPartitions } from '../auth/identity/caller-partitions';
import type { ConsumedStateStore } from '../request-state/stores/one-time/consumed-state-store.interface';
import type { McpReplayStep } from '../request-state/replay/mcp-replay.step';
import type {
  OpenedRequestState,
  RequestStateSealer,
} from '../request-state/sealing/request-state.sealer';
import { ExecutionContextHost } from '../kit/nest-internals';
import { EmittedRound } from './emitted-round';
import type { OperationCall } from './operation-call';
import { handlerArgsOf, testOperationCall } from './operation-call.spec-helper';
import { StateProtectionInterceptor } from './state-protection.interceptor';

const NAMES = [...Object.getOwnPropertyNames(Object.prototype), '__proto__', 'prototype'];
const DECLINE = { action: 'decline' };
const ROOTS = { roots: [] };

/** The asked kinds as the sealer reads them back: parsed JSON, where "__proto__" is a key. */
function askedKinds(json: string): OpenedRequestState['askedKinds'] {
  return parse(json) as OpenedRequestState['askedKinds'];
}

const sealer = (asked: OpenedRequestState['askedKinds']) =>
  ({
    openNow: () =>
      Promise.resolve({
        header: { v: 3, iat: 0, exp: 0, r: 1 },
        value: { step: 1 },
        askedKinds: asked,
        replayLedger: undefined,
      }),
    seal: () => Promise.resolve('4_0_0_2.sealed'),
  }) as unknown as RequestStateSealer;

function interceptor(asked: OpenedRequestState['askedKinds']): StateProtectionInterceptor {
  const partitions = {
    resolve: () => Promise.resolve('anonymous'),
  } as unknown as CallerPartitions;
  return new StateProtectionInterceptor(
    '/mcp',
    sealer(asked),
    partitions,
    {} as ConsumedStateStore,
    {} as McpReplayStep,
    { activeTrace: () => undefined } as unknown as McpTelemetry,
    {} as KeyringRecordIntegrity,
  );
}

function frameworkCall(params: Record<string, unknown>): OperationCall {
  return testOperationCall({
    target: 'flow',
    params: { name: 'flow', ...params },
    profile: { stateMode: McpRequestStateMode.FRAMEWORK_PROTECTED },
  });
}

/** Runs `call` through the interceptor as Nest would, the method returning `returned`. */
function intercepted(
  protection: StateProtectionInterceptor,
  call: OperationCall,
  returned: unknown,
): Promise<unknown> {
  const context = new ExecutionContextHost(handlerArgsOf(call));
  return lastValueFrom(protection.intercept(context, { handle: () => of(returned) }));
}

/** Runs one framework-protected round whose state opens with `asked`, and returns its call. */
async function retry(
  inputResponses: unknown,
  asked: OpenedRequestState['askedKinds'],
): Promise<OperationCall> {
  const call = frameworkCall({ requestState: '4_0_0_1.sealed', inputResponses });
  await intercepted(interceptor(asked), call, 'done');
  return call;
}

describe('StateProtectionInterceptor, as Nest runs it', () => {
  it('opens the round before the method, as a value the method context shows', async () => {
    const call = frameworkCall({ requestState: '4_0_0_1.sealed' });
    const protection = interceptor({});
    const context = new ExecutionContextHost(handlerArgsOf(call));
    let seen: unknown;
    const result = await lastValueFrom(
      protection.intercept(context, {
        handle: () => {
          seen = call.methodContext.requestState.framework();
          return of('done');
        },
      }),
    );
    expect(result).toBe('done');
    expect(seen).toEqual({ step: 1 });
    expect(call.context.requestState.framework()).toBeUndefined();
  });

  it('hands upward the sealed token only, never the plaintext state', async () => {
    const call = frameworkCall({});
    const emitted = McpInputRequiredResult.builder()
      .inputRequest('roots', McpInputRequest.listRoots())
      .frameworkState({ secret: 'plan-b' })
      .build();
    const upward = await intercepted(interceptor({}), call, emitted);
    expect(upward).toBeInstanceOf(EmittedRound);
    const wire = (upward as EmittedRound).wire;
    expect(wire.requestState).toBe('4_0_0_2.sealed');
    expect(JSON.stringify(wire)).not.toContain('plan-b');
  });

  it('records a refused state, so an outer interceptor cannot answer it away', async () => {
    const call = frameworkCall({ requestState: 42 });
    await expect(intercepted(interceptor({}), call, 'done')).rejects.toMatchObject({
      code: -32602,
      message: 'Invalid request state',
    });
    expect(call.recorded).toMatchObject({ kind: 'refused', error: { code: -32602 } });
  });

  it('passes calls that are not operation calls straight on', async () => {
    const protection = interceptor({});
    const context = new ExecutionContextHost([{}, {}, undefined, undefined]);
    await expect(
      lastValueFrom(protection.intercept(context, { handle: () => of('plain') })),
    ).resolves.toBe('plain');
  });
});

describe('StateProtectionInterceptor input responses', () => {
  const approvalAsked = askedKinds('{"approval":"elicitation"}');

  it.each(NAMES)('keeps an unasked "%s" response apart, never as an answer', async (name) => {
    const call = await retry(Object.fromEntries([[name, DECLINE]]), approvalAsked);
    expect(call.opened!.responses.find(name)).toBeUndefined();
    expect(call.opened!.responses.find('approval')).toBeUndefined();
    expect(call.opened!.responses.unexpectedKeys).toEqual([name]);
    expect(call.opened!.responses.asMap().get(name)).toMatchObject({ kind: 'elicitation' });
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
      expect(call.opened!.responses.find(name)).toEqual<McpInputResponse>({
        kind: 'roots',
        roots: [],
      });

      const wrongKind = await retry(Object.fromEntries([[name, DECLINE]]), asked).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(wrongKind).toMatchObject({ code: -32602, data: { key: name } });
    },
  );
});
