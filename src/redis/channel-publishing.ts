import type { Logger } from '@nestjs/common';
import { RedisCommandError } from './redis-command.error';

/**
 * What a channel's publisher logs when its messages stop reaching, and again reach, the fleet.
 * @internal
 */
export interface ChannelPublishingMessages {
  readonly restored: string;
  readonly failing: (reason: string) => string;
}

/**
 * The health of one pub/sub channel's publishing: logs once when publishes start failing and once
 * when they succeed again, so a Redis outage costs two log lines, not one per message.
 * @internal
 */
export class ChannelPublishing {
  private state: 'ok' | 'failing' = 'ok';

  constructor(
    private readonly logger: Logger,
    private readonly messages: ChannelPublishingMessages,
  ) {}

  /** Follows one publish; `closed` says whether the bus shut down meanwhile (then nothing is logged). */
  track(publish: Promise<unknown>, closed: () => boolean): void {
    publish.then(
      () => {
        if (this.state === 'ok') return;
        this.state = 'ok';
        this.logger.log(this.messages.restored);
      },
      (error: unknown) => {
        if (this.state === 'failing' || closed()) return;
        this.state = 'failing';
        const reason = error instanceof RedisCommandError ? error.reason : 'unknown';
        this.logger.warn(this.messages.failing(reason));
      },
    );
  }
}
