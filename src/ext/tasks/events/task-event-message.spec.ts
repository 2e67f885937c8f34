import { KeyringManager } from '../../../keyring/keyring-manager.service';
import { KeyringRecordIntegrity } from '../../../keyring/record-integrity';
import { decodeTaskEvent, encodeTaskEvent } from './task-event-message';

const integrity = (byte: number) =>
  new KeyringRecordIntegrity(
    new KeyringManager({ keyring: { active: 'k', keys: { k: Buffer.alloc(32, byte) } } }),
  );

describe('task event messages', () => {
  const event = { origin: 'inst_A-1', taskId: 'zF4Oj_CzUdQJZrtSkJhFpQ', version: 7 };

  it('reads back what it wrote', () => {
    expect(encodeTaskEvent(event)).toBe('inst_A-1 zF4Oj_CzUdQJZrtSkJhFpQ 7');
    expect(decodeTaskEvent(encodeTaskEvent(event))).toEqual(event);
  });

  it.each([
    ['not a string', 42],
    ['two parts', 'inst zF4O'],
    ['four parts', 'inst zF4O 7 extra'],
    ['an empty origin', ' zF4O 7'],
    ['a task id with foreign characters', 'inst zF4O:x 7'],
    ['a task id longer than any task id', `inst ${'x'.repeat(129)} 7`],
    ['version zero', 'inst zF4O 0'],
    ['a negative version', 'inst zF4O -1'],
    ['a version in exponent notation', 'inst zF4O 1e3'],
    ['a version with a leading zero', 'inst zF4O 07'],
    ['a version past safe integers', 'inst zF4O 9999999999999999'],
    ['JSON', '{"taskId":"zF4O","version":1}'],
    ['an oversized message', `inst zF4O 7${' '.repeat(600)}`],
  ])('ignores %s', (_, message) => {
    expect(decodeTaskEvent(message)).toBeUndefined();
  });

  it('with the keyring, reads only what the fleet tagged for this channel', () => {
    const mine = integrity(1);
    const message = encodeTaskEvent(event, mine, 'chan');
    expect(decodeTaskEvent(message, mine, 'chan')).toEqual(event);
    // Unauthenticated, forged by another keyring, replayed on another channel, edited: ignored.
    expect(decodeTaskEvent(encodeTaskEvent(event), mine, 'chan')).toBeUndefined();
    expect(
      decodeTaskEvent(encodeTaskEvent(event, integrity(2), 'chan'), mine, 'chan'),
    ).toBeUndefined();
    expect(decodeTaskEvent(message, mine, 'other')).toBeUndefined();
    expect(decodeTaskEvent(message.replace(' 7 ', ' 8 '), mine, 'chan')).toBeUndefined();
  });
});
