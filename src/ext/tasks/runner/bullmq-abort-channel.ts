import type { Logger } from '@nestjs/common';
import { OccasionalWarning } from '../../../kit/occasional-warning';
import type { BullMqRedisClient } from './bullmq-redis-client';
import { STEP_CANCELLED, type BullMqRunningSteps } from './bullmq-running-steps';
import type { BullMqStepGenerations } from './bullmq-step-generations';
import { abortMessage, readAbortMessage } from './bullmq-step-messages';
import type { McpRedisClient, RecordIntegrity } from '../../../extension-api';

/**
 * The Redis channel every runner of a queue listens on, so a cancel or a newer step aborts a
 * running step wherever it runs. Messages are tagged under the keyring; others are ignored (and
 * said so, occasionally). After a reconnection the steps running here check their generation, for
 * the cancels missed meanwhile.
 * @internal
 */
export class BullMqAbortChannel {
  /** Resolves once this runner hears aborts. */
  readonly ready: Promise<void>;
  private readonly subscriber: McpRedisClient;
  private readonly forged: OccasionalWarning;

  constructor(
    private readonly client: BullMqRedisClient,
    private readonly channel: string,
    private readonly steps: BullMqRunningSteps,
    private readonly generations: BullMqStepGenerations,
    private readonly integrity: () => RecordIntegrity | undefined,
    logger: Logger,
    /** Told of the subscriber's connection errors (the runner says so once per outage). */
    onRedisError: (error: Error) => void,
  ) {
    this.forged = new OccasionalWarning((line) => logger.warn(line));
    this.subscriber = client.duplicate();
    // Without a listener ioredis prints every failed reconnection as an unhandled error event.
    this.subscriber.on('error', onRedisError);
    this.subscriber.on('message', (from, message) => this.onMessage(from, message));
    this.subscriber.on('ready', () => void this.catchUp());
    this.ready = this.subscriber.subscribe(channel).then(() => undefined);
    this.ready.catch(() => undefined);
  }

  /** Aborts the task's steps below `generation` on every runner of the queue. */
  async publish(taskId: string, generation: number): Promise<void> {
    const message = abortMessage(this.integrity(), this.channel, taskId, generation);
    await this.client.call('PUBLISH', this.channel, message);
  }

  close(): void {
    this.subscriber.disconnect();
  }

  private async catchUp(): Promise<void> {
    try {
      await this.subscriber.subscribe(this.channel);
      for (const step of this.steps.running())
        if ((await this.generations.current(step.taskId)) > step.generation)
          step.controller.abort(STEP_CANCELLED);
    } catch {
      // Redis went away again: the next reconnection catches up.
    }
  }

  private onMessage(from: string, message: string): void {
    if (from !== this.channel) return;
    const abort = readAbortMessage(this.integrity(), this.channel, message);
    if (abort) this.steps.abortBelow(abort.taskId, abort.generation);
    else
      this.forged.report(
        `A message on ${this.channel} is not one of the fleet's (unauthenticated or malformed) and is ignored`,
      );
  }
}
