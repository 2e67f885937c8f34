import { SessionEventBus } from './session-event-bus';
import type { SessionEvent } from './session-event';

/** The {@link SessionEventBus} of one process. @internal */
export class MemorySessionEventBus extends SessionEventBus {
  readonly fleet = false;

  publish(event: SessionEvent): void {
    this.deliver(event, 'local');
  }
}
