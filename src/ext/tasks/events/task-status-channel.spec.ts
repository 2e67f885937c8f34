import { encodeFleetMessage } from '../../../wire/fleet/fleet-message';
import { KeyringManager } from '../../../keyring/keyring-manager.service';
import { KeyringRecordIntegrity } from '../../../keyring/record-integrity';
import {
  decodeTaskStatus,
  MAX_TASK_STATUS_MESSAGE_BYTES,
  TASK_STATUS_CHANNEL,
} from './task-status-channel';

describe("the tasks' fleet channel", () => {
  const event = { taskId: 'zF4Oj_CzUdQJZrtSkJhFpQ', version: 7 };

  it('reads back a status change: the task id and version, nothing else', () => {
    expect(decodeTaskStatus(JSON.parse(JSON.stringify(event)))).toEqual(event);
    expect(decodeTaskStatus({ ...event, status: 'completed', result: {} })).toEqual(event);
  });

  it.each([
    ['not an object', 'zF4O 7'],
    ['null', null],
    ['no version', { taskId: 'zF4O' }],
    ['an empty task id', { taskId: '', version: 1 }],
    ['a task id with foreign characters', { taskId: 'zF4O:x', version: 1 }],
    ['a task id longer than any task id', { taskId: 'x'.repeat(129), version: 1 }],
    ['version zero', { taskId: 'zF4O', version: 0 }],
    ['a negative version', { taskId: 'zF4O', version: -1 }],
    ['a fractional version', { taskId: 'zF4O', version: 1.5 }],
    ['a version in a string', { taskId: 'zF4O', version: '7' }],
    ['a version past safe integers', { taskId: 'zF4O', version: 2 ** 53 }],
  ])('refuses %s', (_, value) => {
    expect(decodeTaskStatus(value)).toBeUndefined();
  });

  it('is bounded to 512 bytes, room for the longest task id and version with the framing', () => {
    expect(TASK_STATUS_CHANNEL.name).toBe('tasks');
    expect(TASK_STATUS_CHANNEL.maxBytes).toBe(MAX_TASK_STATUS_MESSAGE_BYTES);
    const integrity = new KeyringRecordIntegrity(
      new KeyringManager({ keyring: { active: 'k', keys: { k: Buffer.alloc(32, 1) } } }),
    );
    const longest = encodeFleetMessage(
      {
        origin: 'x'.repeat(16),
        channel: TASK_STATUS_CHANNEL.name,
        event: { taskId: 'x'.repeat(128), version: Number.MAX_SAFE_INTEGER },
      },
      integrity,
      `${'p'.repeat(64)}fleet`,
    );
    expect(Buffer.byteLength(longest)).toBeLessThan(MAX_TASK_STATUS_MESSAGE_BYTES);
  });
});
