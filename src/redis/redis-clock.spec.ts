import { RedisClock } from './redis-clock';

/** A Redis whose clock runs `offsetMs` ahead, answering `TIME` after `delays` ms each (in turn). */
function redisAhead(offsetMs: number, delays: number[], clock: { now: number }) {
  let calls = 0;
  const readTime = jest.fn(async () => {
    const delay = delays[Math.min(calls++, delays.length - 1)];
    // Redis reads its clock on arrival (half the round trip), the reply takes the other half.
    clock.now += delay / 2;
    const redisMs = clock.now + offsetMs;
    clock.now += delay / 2;
    return [String(Math.floor(redisMs / 1000)), String((redisMs % 1000) * 1000)];
  });
  return readTime;
}

describe('RedisClock', () => {
  it('measures the offset before the first deadline, so a Redis an hour ahead gets a deadline on its own clock', async () => {
    const clock = { now: 1_000_000_000_000 };
    const readTime = redisAhead(3_600_000, [2], clock);
    const redis = new RedisClock(readTime, () => clock.now);
    const deadline = await redis.deadline(1_000);
    // Never later than intended on Redis's clock, earlier by at most the round trip.
    const intended = clock.now + 3_600_000 + 1_000;
    expect(deadline).toBeLessThanOrEqual(intended);
    expect(deadline).toBeGreaterThanOrEqual(intended - 2);
    await redis.deadline(1_000);
    expect(readTime).toHaveBeenCalledTimes(1);
  });

  it('measures again at once when the first round trip was slow (a connection being made), keeping the faster', async () => {
    const clock = { now: 1_000_000_000_000 };
    const readTime = redisAhead(-5_000, [800, 1], clock);
    const redis = new RedisClock(readTime, () => clock.now);
    const deadline = await redis.deadline(300);
    expect(readTime).toHaveBeenCalledTimes(2);
    expect(deadline).toBeGreaterThanOrEqual(clock.now - 5_000 + 300 - 1);
    expect(deadline).toBeLessThanOrEqual(clock.now - 5_000 + 300);
  });

  it('measures again after a script found itself late, and not before 30 s otherwise', async () => {
    const clock = { now: 1_000_000_000_000 };
    const readTime = redisAhead(0, [1], clock);
    const redis = new RedisClock(readTime, () => clock.now);
    await redis.deadline(100);
    clock.now += 10_000;
    await redis.deadline(100);
    expect(readTime).toHaveBeenCalledTimes(1);
    redis.late();
    await redis.deadline(100);
    await Promise.resolve();
    expect(readTime).toHaveBeenCalledTimes(2);
  });

  it('uses no offset while Redis cannot be asked, and asks again on the next deadline', async () => {
    const readTime = jest.fn(() => Promise.reject(new Error('Connection is closed.')));
    const redis = new RedisClock(readTime, () => 5_000);
    expect(await redis.deadline(100)).toBe(5_100);
    expect(await redis.deadline(100)).toBe(5_100);
    expect(readTime).toHaveBeenCalledTimes(2);
  });
});
