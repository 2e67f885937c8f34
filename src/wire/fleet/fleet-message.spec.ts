import { KeyringManager } from '../../keyring/keyring-manager.service';
import { KeyringRecordIntegrity } from '../../keyring/record-integrity';
import {
  decodeFleetMessage,
  encodeFleetMessage,
  type FleetMessage,
  type FleetMessageReading,
} from './fleet-message';

const K1 = Buffer.alloc(32, 1);
const K2 = Buffer.alloc(32, 2);
const MAX = 10_000;
const CHANNEL = 'app:fleet';
const integrityOf = (keys: Record<string, Buffer>, active: string) =>
  new KeyringRecordIntegrity(new KeyringManager({ keyring: { active, keys } }));
const readingOf = (
  integrity: KeyringRecordIntegrity,
  maxBytesOf: (channel: string) => number = () => MAX,
  redisChannel = CHANNEL,
): FleetMessageReading => ({ integrity, redisChannel, maxBytesOf });

const ANSWER: FleetMessage = {
  origin: 'inst-a',
  channel: 'sessions',
  event: {
    kind: 'answer',
    sessionId: 'session-1',
    id: 7,
    response: '{"jsonrpc":"2.0","id":7,"result":{"action":"accept","content":{"n":3.50}}}',
  },
};

describe('fleet messages', () => {
  const integrity = integrityOf({ k1: K1 }, 'k1');
  const reading = readingOf(integrity);

  it('carry any channel, event and sender, the answer text byte for byte', () => {
    const messages: FleetMessage[] = [
      ANSWER,
      {
        origin: 'inst-a',
        channel: 'tasks',
        event: { taskId: 'zF4Oj_CzUdQJZrtSkJhFpQ', version: 7 },
      },
      { origin: 'inst_B-2', channel: 'changes', event: { kind: 'listChanged', list: 'tools' } },
      { origin: 'i', channel: 'x', event: null },
    ];
    for (const message of messages)
      expect(decodeFleetMessage(encodeFleetMessage(message, integrity, CHANNEL), reading)).toEqual(
        message,
      );
  });

  it('are framed as `<origin> <tag> {"channel":…,"event":…}`, the channel first', () => {
    const text = encodeFleetMessage(ANSWER, integrity, CHANNEL);
    const [origin, tag, ...json] = text.split(' ');
    expect(origin).toBe('inst-a');
    expect(tag).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(JSON.parse(json.join(' '))).toEqual({ channel: 'sessions', event: ANSWER.event });
    expect(json.join(' ')).toMatch(/^\{"channel":"sessions","event":\{/);
  });

  it('are verified with any key of the keyring, and refused once that key is gone', () => {
    const text = encodeFleetMessage(ANSWER, integrityOf({ k1: K1 }, 'k1'), CHANNEL);
    expect(decodeFleetMessage(text, readingOf(integrityOf({ k1: K1, k2: K2 }, 'k2')))).toEqual(
      ANSWER,
    );
    expect(decodeFleetMessage(text, readingOf(integrityOf({ k2: K2 }, 'k2')))).toBeUndefined();
    // Same key id, other bytes: an impostor on the same Redis.
    expect(decodeFleetMessage(text, readingOf(integrityOf({ k1: K2 }, 'k1')))).toBeUndefined();
  });

  it('are refused when anything in them changed: the event, the channel, the sender, the tag', () => {
    const text = encodeFleetMessage(ANSWER, integrity, CHANNEL);
    const [origin, tag, ...rest] = text.split(' ');
    const json = rest.join(' ');
    const forged = [
      text.replace('3.50', '9.50'),
      text.replace('session-1', 'session-2'),
      // The same event moved to another channel, whose listeners would take it.
      text.replace('"channel":"sessions"', '"channel":"tasks"'),
      `inst-b ${tag} ${json}`,
      `${origin} ${tag.slice(0, -2)}AA ${json}`,
      `${origin} ${json}`,
      `${origin}  ${json}`,
      json,
    ];
    for (const each of forged) expect(decodeFleetMessage(each, reading)).toBeUndefined();
  });

  it('are refused on another Redis channel (another key prefix sharing the keyring)', () => {
    const text = encodeFleetMessage(ANSWER, integrity, 'other-app:fleet');
    expect(decodeFleetMessage(text, reading)).toBeUndefined();
  });

  it("are refused past their channel's bound, counted in bytes, before their tag is checked", () => {
    const verify = jest.spyOn(integrity, 'verify');
    const bounds = (channel: string) => (channel === 'tasks' ? 200 : MAX);
    const event = { text: 'é'.repeat(60) };
    const onTasks = encodeFleetMessage(
      { origin: 'a', channel: 'tasks', event },
      integrity,
      CHANNEL,
    );
    // Under 200 characters, over 200 bytes.
    expect(onTasks.length).toBeLessThan(200);
    expect(Buffer.byteLength(onTasks)).toBeGreaterThan(200);
    verify.mockClear();
    expect(decodeFleetMessage(onTasks, readingOf(integrity, bounds))).toBeUndefined();
    expect(verify).not.toHaveBeenCalled();
    // The same event on a channel with room for it.
    const onChanges = encodeFleetMessage(
      { origin: 'a', channel: 'changes', event },
      integrity,
      CHANNEL,
    );
    expect(decodeFleetMessage(onChanges, readingOf(integrity, bounds))?.event).toEqual(event);
    const long = encodeFleetMessage(
      { ...ANSWER, event: { response: 'x'.repeat(MAX) } },
      integrity,
      CHANNEL,
    );
    expect(decodeFleetMessage(long, reading)).toBeUndefined();
    verify.mockRestore();
  });

  it('are refused when not framed as one, even tagged', () => {
    const tagged = (origin: string, json: string) =>
      `${origin} ${integrity.tag('fleet-message', [CHANNEL, origin, json])} ${json}`;
    for (const text of [
      tagged('a', '{"event":{},"channel":"tasks"}'),
      tagged('a', '{"channel":"tasks","event":{},"channel":"changes"}'),
      tagged('a', '{"channel":"tasks","event":{},"more":1}'),
      tagged('a', '{"channel":"tasks","event":'),
      tagged('a', '{"channel":"Tasks","event":{}}'),
      tagged('a', '["tasks",{}]'),
      tagged('bad!origin', '{"channel":"tasks","event":{}}'),
      Buffer.from('a b c'),
      42,
      'bad origin! tag {}',
    ])
      expect(decodeFleetMessage(text, reading)).toBeUndefined();
    expect(decodeFleetMessage(tagged('a', '{"channel":"tasks","event":{}}'), reading)).toEqual({
      origin: 'a',
      channel: 'tasks',
      event: {},
    });
  });
});
