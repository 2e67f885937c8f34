import { ProtocolError } from '@modelcontextprotocol/server';
import { McpInputRequest } from '../../input/mcp-input-request';
import type { McpInputResponse } from '../../input/mcp-input-response';
import { McpInputResponses } from '../../input/mcp-input-responses';
import { questionFingerprint } from './question-fingerprint';
import { ReplayExecution } from './replay-execution';
import { decodeLedger, MAX_REPLAY_SLOTS, type LedgerSlot } from './replay-ledger';
import { ReplayPendingSignal } from './replay-pending.signal';

const schema = { type: 'object', properties: { v: { type: 'string' } } };
const question = (message: string) =>
  McpInputRequest.elicitForm({ message, requestedSchema: schema });
const answer = (v: string): McpInputResponse => ({
  kind: 'elicitation',
  action: 'accept',
  content: { v },
});
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** The ledger one execution leaves, and the keys its round asked. */
function roundOf(execution: ReplayExecution): { slots: LedgerSlot[]; asked: string[] } {
  execution.close();
  return {
    slots: decodeLedger(execution.encodedLedger() as string) as LedgerSlot[],
    asked: [...execution.pendingAsks.keys()],
  };
}

function answers(record: Record<string, McpInputResponse>): McpInputResponses {
  return McpInputResponses.from(record, Object.keys(record));
}

describe('a replay execution', () => {
  it('ends a sequential handler at its first unanswered ask, then answers it from the ledger', async () => {
    const handler = async (execution: ReplayExecution) => {
      const a = await execution.ask(question('A?'));
      const b = await execution.ask(question('B?'));
      return [a, b].map(({ key, answer: given }) => `${key}=${JSON.stringify(given)}`);
    };
    const first = ReplayExecution.resume([], McpInputResponses.empty());
    await expect(handler(first)).rejects.toBeInstanceOf(ReplayPendingSignal);
    const round1 = roundOf(first);
    expect(round1.asked).toEqual(['ask-1']);
    expect(round1.slots).toEqual([
      { fingerprint: questionFingerprint(question('A?')), kind: 'elicitation', answer: undefined },
    ]);

    const second = ReplayExecution.resume(round1.slots, answers({ 'ask-1': answer('a') }));
    await expect(handler(second)).rejects.toBeInstanceOf(ReplayPendingSignal);
    const round2 = roundOf(second);
    expect(round2.asked).toEqual(['ask-2']);
    expect(round2.slots.map((slot) => slot.answer)).toEqual([answer('a'), undefined]);

    const third = ReplayExecution.resume(round2.slots, answers({ 'ask-2': answer('b') }));
    await expect(handler(third)).resolves.toEqual([
      `ask-1=${JSON.stringify(answer('a'))}`,
      `ask-2=${JSON.stringify(answer('b'))}`,
    ]);
    expect(third.pendingAsks.size).toBe(0);
  });

  it('asks everything asked before the handler next waits on I/O as one round, nothing after', async () => {
    const execution = ReplayExecution.resume([], McpInputResponses.empty());
    const together = Promise.all([
      execution.ask(question('A?')),
      Promise.resolve().then(() => execution.ask(question('B?'))),
    ]);
    await expect(together).rejects.toBeInstanceOf(ReplayPendingSignal);
    await nextTurn();
    await expect(execution.ask(question('C?'))).rejects.toBeInstanceOf(ReplayPendingSignal);
    expect(roundOf(execution)).toMatchObject({ asked: ['ask-1', 'ask-2'] });
    expect(roundOf(execution).slots).toHaveLength(2);
  });

  it('re-asks an unanswered slot of the last round and takes no answer for a key it did not ask', async () => {
    const first = ReplayExecution.resume([], McpInputResponses.empty());
    await Promise.allSettled([first.ask(question('A?')), first.ask(question('B?'))]);
    const slots = roundOf(first).slots;
    // ask-2 answered by the client but not "asked" according to the previous round's keys.
    const second = ReplayExecution.resume(
      slots,
      McpInputResponses.from({ 'ask-1': answer('a'), 'ask-2': answer('b') }, ['ask-1']),
    );
    await expect(second.ask(question('A?'))).resolves.toEqual({
      key: 'ask-1',
      answer: answer('a'),
    });
    await expect(second.ask(question('B?'))).rejects.toBeInstanceOf(ReplayPendingSignal);
    expect(roundOf(second).asked).toEqual(['ask-2']);
  });

  it('refuses another question at a recorded slot with -32602 naming the rule', async () => {
    const first = ReplayExecution.resume([], McpInputResponses.empty());
    await first.ask(question('A?')).catch(() => undefined);
    const second = ReplayExecution.resume(roundOf(first).slots, answers({ 'ask-1': answer('a') }));
    const refused = await second.ask(question('Another?')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ProtocolError);
    expect(refused).toMatchObject({ code: -32602, data: { key: 'ask-1' } });
    expect((refused as Error).message).toContain('must ask the same questions in the same order');
    // Sticky: the handler cannot swallow it and carry on asking.
    await expect(second.ask(question('A?'))).rejects.toBe(refused);
    expect(second.contractViolation).toBe(refused);
  });

  it('fingerprints the whole question but not its key order', () => {
    const reordered = McpInputRequest.elicitForm({
      requestedSchema: { properties: { v: { type: 'string' } }, type: 'object' },
      message: 'A?',
    });
    expect(questionFingerprint(reordered)).toBe(questionFingerprint(question('A?')));
    expect(questionFingerprint(question('A? '))).not.toBe(questionFingerprint(question('A?')));
    expect(questionFingerprint(McpInputRequest.listRoots())).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it(`stops at ${MAX_REPLAY_SLOTS} asks in one flow`, async () => {
    const execution = ReplayExecution.resume([], McpInputResponses.empty());
    const asks = Array.from({ length: MAX_REPLAY_SLOTS + 1 }, (_, index) =>
      execution.ask(question(`Q${index}?`)),
    );
    await Promise.allSettled(asks);
    expect(execution.overflow).toBe(true);
    expect(roundOf(execution).asked).toHaveLength(MAX_REPLAY_SLOTS);
  });

  it('never leaves an unawaited unanswered ask as an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const execution = ReplayExecution.resume([], McpInputResponses.empty());
      void execution.ask(question('A?'));
      void execution.ask(question('B?'));
      await nextTurn();
      await nextTurn();
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
  });
});
