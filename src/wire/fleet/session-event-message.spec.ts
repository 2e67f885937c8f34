import { KeyringManager } from '../../keyring/keyring-manager.service';
import { KeyringRecordIntegrity } from '../../keyring/record-integrity';
import type { SessionEvent } from './session-event';
import { decodeSessionEvent, encodeSessionEvent } from './session-event-message';

const K1 = Buffer.alloc(32, 1);
const K2 = Buffer.alloc(32, 2);
const MAX = 10_000;
const integrityOf = (keys: Record<string, Buffer>, active: string) =>
  new KeyringRecordIntegrity(new KeyringManager({ keyring: { active, keys } }));

const ANSWER: SessionEvent = {
  kind: 'answer',
  sessionId: 'session-1',
  id: 7,
  response: '{"jsonrpc":"2.0","id":7,"result":{"action":"accept","content":{"n":3.50}}}',
};

describe('session event messages', () => {
  const integrity = integrityOf({ k1: K1 }, 'k1');

  it('carry every kind of event and who sent it, the answer text byte for byte', () => {
    const events: SessionEvent[] = [
      ANSWER,
      { kind: 'cancel', sessionId: 'session-1', requestId: 'r-1' },
      { kind: 'closed', sessionId: 'session-1' },
      { kind: 'listChanged', list: 'tools' },
      { kind: 'resourceUpdated', uri: 'test://watched-resource' },
    ];
    for (const event of events)
      expect(
        decodeSessionEvent(encodeSessionEvent('inst-a', event, integrity), integrity, MAX),
      ).toEqual({ origin: 'inst-a', event });
  });

  it('are verified with any key of the keyring, and refused once that key is gone', () => {
    const message = encodeSessionEvent('inst-a', ANSWER, integrityOf({ k1: K1 }, 'k1'));
    expect(decodeSessionEvent(message, integrityOf({ k1: K1, k2: K2 }, 'k2'), MAX)).toBeDefined();
    expect(decodeSessionEvent(message, integrityOf({ k2: K2 }, 'k2'), MAX)).toBeUndefined();
    // Same key id, other bytes: an impostor on the same Redis.
    expect(decodeSessionEvent(message, integrityOf({ k1: K2 }, 'k1'), MAX)).toBeUndefined();
  });

  it('are refused when anything in them changed: the event, the sender, the tag', () => {
    const message = encodeSessionEvent('inst-a', ANSWER, integrity);
    const [origin, tag, ...rest] = message.split(' ');
    const json = rest.join(' ');
    const forged = [
      message.replace('3.50', '9.50'),
      message.replace('session-1', 'session-2'),
      `inst-b ${tag} ${json}`,
      `${origin} ${tag.slice(0, -2)}AA ${json}`,
      `${origin} ${json}`,
      `${origin}  ${json}`,
      json,
    ];
    for (const each of forged) expect(decodeSessionEvent(each, integrity, MAX)).toBeUndefined();
  });

  it('are refused past the length bound, or when they are not one of the events', () => {
    const long: SessionEvent = { ...ANSWER, response: 'x'.repeat(MAX) };
    expect(
      decodeSessionEvent(encodeSessionEvent('a', long, integrity), integrity, MAX),
    ).toBeUndefined();
    for (const event of [
      { kind: 'answer', sessionId: 'session-1', id: {}, response: '{}' },
      { kind: 'answer', sessionId: 'x'.repeat(65), id: 1, response: '{}' },
      { kind: 'listChanged', list: 'secrets' },
      { kind: 'shutdown' },
      null,
      [],
    ])
      expect(
        decodeSessionEvent(
          encodeSessionEvent('a', event as unknown as SessionEvent, integrity),
          integrity,
          MAX,
        ),
      ).toBeUndefined();
    expect(decodeSessionEvent(Buffer.from('a b c'), integrity, MAX)).toBeUndefined();
    expect(decodeSessionEvent('bad origin! tag {}', integrity, MAX)).toBeUndefined();
  });
});
