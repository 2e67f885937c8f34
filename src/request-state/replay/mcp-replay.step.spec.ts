import { ProtocolError } from '@modelcontextprotocol/server';
import { McpInputRequest } from '../../input/mcp-input-request';
import { McpInputRequiredResult } from '../../input/mcp-input-required.result';
import { McpInputResponses } from '../../input/mcp-input-responses';
import { resolveMcpOptions } from '../../mcp-options.resolver';
import { McpReplayStep, type ReplaySettlement } from './mcp-replay.step';
import type { ReplayExecution } from './replay-execution';

const form = (message: string) =>
  McpInputRequest.elicitForm({
    message,
    requestedSchema: { type: 'object', properties: { v: { type: 'string' } } },
  });

const SITE = { method: 'tools/call', target: 'flow', requestId: 1 };

/** What the round answers, as the state protection interceptor makes of a settlement. */
function answer(settled: ReplaySettlement): unknown {
  if (settled.kind === 'value') return settled.value;
  throw settled.error;
}

describe('McpReplayStep', () => {
  const step = new McpReplayStep(resolveMcpOptions().requestState);

  async function settled(handler: (execution: ReplayExecution) => Promise<unknown>) {
    const execution = step.begin(SITE, undefined, McpInputResponses.empty());
    return answer(await step.settle(SITE, execution, { step: 1 }, handler(execution)));
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
    let thrown: unknown;
    try {
      step.begin(SITE, '[{"f":"short","k":"roots"}]', McpInputResponses.empty());
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ProtocolError);
    expect(thrown).toMatchObject({ code: -32602, message: 'Invalid request state' });
  });
});
