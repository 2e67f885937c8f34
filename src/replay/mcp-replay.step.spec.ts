import { ProtocolError } from '@modelcontextprotocol/server';
import { McpInputRequest } from '../input/mcp-input-request';
import { McpInputRequiredResult } from '../input/mcp-input-required.result';
import { resolveMcpOptions } from '../mcp-options.resolver';
import { McpOperationCall } from '../pipeline/mcp-operation-call';
import { McpRequestStateMode } from '../input/mcp-request-state-mode.enum';
import { createTestRequestContext } from '../testing/create-test-request-context';
import { McpReplayStep } from './mcp-replay.step';
import { ReplayExecution } from './replay-execution';

const form = (message: string) =>
  McpInputRequest.elicitForm({
    message,
    requestedSchema: { type: 'object', properties: { v: { type: 'string' } } },
  });

/** A call of a `replay: true` tool whose round opened `frameworkState` and `openedLedger`. */
function replayCall(frameworkState?: { step: number }, openedLedger?: string): McpOperationCall {
  const call = new McpOperationCall(
    'operation',
    {},
    { name: 'flow' },
    {
      declarations: [],
      stateMode: McpRequestStateMode.FRAMEWORK_PROTECTED,
      singleUse: false,
      replay: true,
      argumentsValidator: undefined,
    },
    () => createTestRequestContext(),
  );
  call.frameworkState = frameworkState;
  call.openedLedger = openedLedger;
  return call;
}

describe('McpReplayStep', () => {
  const step = new McpReplayStep(resolveMcpOptions());

  async function settled(handler: (execution: ReplayExecution) => Promise<unknown>) {
    const call = replayCall({ step: 1 });
    step.begin(call);
    return step.settle(call, handler(call.replay as ReplayExecution));
  }

  it('ends the round with the pending ask and carries the handler’s own state on', async () => {
    const result = await settled((execution) => execution.ask(form('A?')));
    expect(result).toBeInstanceOf(McpInputRequiredResult);
    const ended = result as McpInputRequiredResult;
    expect([...ended.inputRequests.keys()]).toEqual(['ask-1']);
    expect(ended.inputRequests.get('ask-1')?.params).toMatchObject({ message: 'A?' });
    expect(ended.frameworkState).toEqual({ step: 1 });
  });

  it.each([
    [
      'swallows the signal and returns a value',
      async (execution: ReplayExecution) => {
        await execution.ask(form('A?')).catch(() => undefined);
        return 'done anyway';
      },
    ],
    [
      'wraps the signal in its own error',
      async (execution: ReplayExecution) => {
        await execution.ask(form('A?')).catch(() => {
          throw new Error('wrapped');
        });
      },
    ],
    [
      'returns its own input-required result',
      async (execution: ReplayExecution) => {
        void execution.ask(form('A?'));
        return McpInputRequiredResult.withInputRequest('mine', form('B?'));
      },
    ],
  ])('still asks when the handler %s', async (_label, handler) => {
    const result = (await settled(handler)) as McpInputRequiredResult;
    expect([...result.inputRequests.keys()]).toEqual(['ask-1']);
  });

  it('passes a completed handler’s result and error through', async () => {
    await expect(settled(() => Promise.resolve('plain'))).resolves.toBe('plain');
    const failure = new Error('boom');
    await expect(settled(() => Promise.reject(failure))).rejects.toBe(failure);
  });

  it('refuses a result of the handler’s own that uses an ask-<n> key with -32603', async () => {
    const refused = settled(() =>
      Promise.resolve(McpInputRequiredResult.withInputRequest('ask-1', form('B?'))),
    );
    await expect(refused).rejects.toMatchObject({ code: -32603 });
  });

  it('refuses a state whose replay ledger it did not write with Invalid request state', () => {
    const call = replayCall(undefined, '[{"f":"short","k":"roots"}]');
    let thrown: unknown;
    try {
      step.begin(call);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ProtocolError);
    expect(thrown).toMatchObject({ code: -32602, message: 'Invalid request state' });
    expect(call.replay).toBeUndefined();
  });
});
