import { LosslessNumber, stringify } from 'lossless-json';
import type { McpInputResponse } from '../../input/mcp-input-response';
import {
  decodeLedger,
  encodeLedger,
  isSlotKey,
  MAX_REPLAY_SLOTS,
  slotKey,
  type LedgerSlot,
} from './replay-ledger';

const F1 = 'a'.repeat(43);
const F2 = 'B_-'.repeat(14) + 'c';

describe('the replay ledger', () => {
  it('round-trips answered and unanswered slots of every kind, numbers exact', () => {
    const slots: LedgerSlot[] = [
      {
        fingerprint: F1,
        kind: 'elicitation',
        answer: {
          kind: 'elicitation',
          action: 'accept',
          content: { amount: new LosslessNumber('3.50'), ok: true, tags: ['a'], name: 'Ada' },
        },
      },
      {
        fingerprint: F2,
        kind: 'elicitation',
        answer: { kind: 'elicitation', action: 'decline', content: undefined },
      },
      {
        fingerprint: F1,
        kind: 'sampling',
        answer: {
          kind: 'sampling',
          role: 'assistant',
          content: { type: 'text', text: 'hi' },
          model: 'm',
          stopReason: undefined,
        },
      },
      {
        fingerprint: F2,
        kind: 'roots',
        answer: { kind: 'roots', roots: [{ uri: 'file:///a', name: 'a' }] },
      },
      { fingerprint: F1, kind: 'roots', answer: undefined },
    ];
    const decoded = decodeLedger(encodeLedger(slots));
    expect(decoded).toEqual(slots.map((slot) => ({ ...slot })));
    const amount = (decoded?.[0].answer as Extract<McpInputResponse, { kind: 'elicitation' }>)
      .content?.amount;
    expect(amount).toBeInstanceOf(LosslessNumber);
    expect((amount as LosslessNumber).value).toBe('3.50');
  });

  it('keeps a "__proto__" form field as data', () => {
    const content = Object.create(null) as Record<string, string[]>;
    content['__proto__'] = ['x'];
    const [slot] = decodeLedger(
      encodeLedger([
        {
          fingerprint: F1,
          kind: 'elicitation',
          answer: { kind: 'elicitation', action: 'accept', content },
        },
      ]),
    ) as LedgerSlot[];
    const decodedContent = (slot.answer as { content: Record<string, unknown> }).content;
    expect(Object.getPrototypeOf(decodedContent)).toBeNull();
    expect(Object.entries(decodedContent)).toEqual([['__proto__', ['x']]]);
  });

  it.each([
    ['not JSON', '[{'],
    ['not an array', '{}'],
    ['a slot that is not an object', '[1]'],
    ['a short fingerprint', stringify([{ f: 'abc', k: 'roots' }]) as string],
    ['an unknown kind', stringify([{ f: F1, k: 'tasks' }]) as string],
    [
      'an answer of the wrong kind',
      stringify([{ f: F1, k: 'roots', a: { action: 'accept' } }]) as string,
    ],
    [
      `more than ${MAX_REPLAY_SLOTS} slots`,
      stringify(
        Array.from({ length: MAX_REPLAY_SLOTS + 1 }, () => ({ f: F1, k: 'roots' })),
      ) as string,
    ],
  ])('refuses %s', (_label, text) => {
    expect(decodeLedger(text)).toBeUndefined();
  });

  it('names slots ask-1, ask-2, … and recognises only that shape', () => {
    expect([0, 1, 9].map(slotKey)).toEqual(['ask-1', 'ask-2', 'ask-10']);
    expect(['ask-1', 'ask-12'].every(isSlotKey)).toBe(true);
    expect(['ask-0', 'ask-01', 'ask-', 'Ask-1', 'ask-1x', 'task-1'].some(isSlotKey)).toBe(false);
  });
});
