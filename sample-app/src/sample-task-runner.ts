import Redis from 'ioredis';
import { BullMqTaskRunner, type BullMqTaskRunnerOptions } from '../../src/entry/redis';

/**
 * The sample's BullMQ runner on a client of its own, closed with the runner: the runner never
 * closes the client it is given, and the sample has no other use for this one.
 */
export class SampleTaskRunner extends BullMqTaskRunner {
  private readonly ownClient: Redis;

  constructor(url: string, options: BullMqTaskRunnerOptions) {
    // Fail fast while Redis is down instead of queueing commands.
    const client = new Redis(url, { maxRetriesPerRequest: 1 });
    super(client, options);
    this.ownClient = client;
  }

  override async close(): Promise<void> {
    await super.close();
    await this.ownClient.quit().catch(() => this.ownClient.disconnect());
  }
}
