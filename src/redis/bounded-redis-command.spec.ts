import { boundedRedisCommand } from './bounded-redis-command';
import type { McpRedisClient } from './mcp-redis-client';
import { RedisCommandError } from './redis-command.error';

function clientIn(status: string): Pick<McpRedisClient, 'status'> {
  return { status };
}

function replyError(message: string): Error {
  return Object.assign(new Error(message), { name: 'ReplyError' });
}

async function reasonOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(RedisCommandError);
  return (error as RedisCommandError).reason;
}

describe('boundedRedisCommand', () => {
  afterEach(() => jest.useRealTimers());

  it('sends while the client is ready (or lazily connecting) and resolves with the reply', async () => {
    expect(await boundedRedisCommand(clientIn('ready'), 100, () => Promise.resolve('OK'))).toBe(
      'OK',
    );
    expect(await boundedRedisCommand(clientIn('wait'), 100, () => Promise.resolve(null))).toBe(
      null,
    );
  });

  it('refuses at once, without sending, while the client is not connected', async () => {
    for (const status of ['connecting', 'connect', 'reconnecting', 'close', 'end']) {
      const command = jest.fn(() => Promise.resolve('OK'));
      expect(await reasonOf(boundedRedisCommand(clientIn(status), 100, command))).toBe(
        'unavailable',
      );
      expect(command).not.toHaveBeenCalled();
    }
  });

  it('gives up after the timeout even if the client would wait forever', async () => {
    jest.useFakeTimers();
    const pending = reasonOf(
      boundedRedisCommand(clientIn('ready'), 250, () => new Promise(() => {})),
    );
    jest.advanceTimersByTime(250);
    expect(await pending).toBe('timeout');
  });

  it('names an error reply by its code only, and anything else as unavailable or timeout', async () => {
    const failing = (error: unknown) =>
      reasonOf(boundedRedisCommand(clientIn('ready'), 1_000, () => Promise.reject(error)));
    expect(await failing(replyError('OOM command not allowed when used memory > maxmemory'))).toBe(
      'rejected OOM',
    );
    expect(await failing(replyError("READONLY You can't write against a read only replica."))).toBe(
      'rejected READONLY',
    );
    expect(await failing(replyError('secret-looking reply text'))).toBe('rejected ERR');
    expect(await failing(new Error('Connection is closed.'))).toBe('unavailable');
    expect(await failing(new Error('Command timed out'))).toBe('timeout');
    expect(await failing('not even an error')).toBe('unavailable');
  });

  it('treats a command that throws synchronously as failed', async () => {
    const throwing = () => {
      throw new Error('Connection is closed.');
    };
    expect(await reasonOf(boundedRedisCommand(clientIn('ready'), 100, throwing))).toBe(
      'unavailable',
    );
  });
});
