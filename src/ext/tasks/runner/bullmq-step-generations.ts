import type { BullMqRedisClient } from './bullmq-redis-client';

/** A task's generation counter lives a week past its last schedule or cancel, as do its failed steps. @internal */
export const GENERATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

const NEXT_GENERATION = `
local generation = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return generation`;

/**
 * Each task's step generation, a counter in Redis the fleet shares: every schedule or cancel takes
 * the next one, and a step runs only while its generation is still the newest.
 * @internal
 */
export class BullMqStepGenerations {
  constructor(
    private readonly client: BullMqRedisClient,
    private readonly keyPrefix: string,
  ) {}

  async next(taskId: string): Promise<number> {
    return Number(
      await this.client.call('EVAL', NEXT_GENERATION, 1, this.key(taskId), GENERATION_TTL_MS),
    );
  }

  async current(taskId: string): Promise<number> {
    return Number((await this.client.call('GET', this.key(taskId))) ?? 0);
  }

  private key(taskId: string): string {
    return `${this.keyPrefix}${taskId}`;
  }
}
