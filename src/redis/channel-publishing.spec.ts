import type { Logger } from '@nestjs/common';
import { ChannelPublishing } from './channel-publishing';
import { RedisCommandError } from './redis-command.error';

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ChannelPublishing', () => {
  const lines: string[] = [];
  const logger = {
    log: (line: string) => lines.push(`log ${line}`),
    warn: (line: string) => lines.push(`warn ${line}`),
  } as unknown as Logger;
  const health = () =>
    new ChannelPublishing(logger, { restored: 'back', failing: (reason) => `down (${reason})` });
  beforeEach(() => lines.splice(0));

  it('logs once when publishes start failing and once when they succeed again', async () => {
    const publishing = health();
    publishing.track(Promise.resolve(1), () => false);
    for (let i = 0; i < 3; i++)
      publishing.track(Promise.reject(new RedisCommandError('unavailable')), () => false);
    await settle();
    publishing.track(Promise.resolve(1), () => false);
    publishing.track(Promise.resolve(1), () => false);
    await settle();
    expect(lines).toEqual(['warn down (unavailable)', 'log back']);
  });

  it('names an unexpected failure "unknown", and says nothing once the bus is closed', async () => {
    const publishing = health();
    publishing.track(Promise.reject(new Error('boom')), () => true);
    await settle();
    expect(lines).toEqual([]);
    publishing.track(Promise.reject(new Error('boom')), () => false);
    await settle();
    expect(lines).toEqual(['warn down (unknown)']);
  });
});
