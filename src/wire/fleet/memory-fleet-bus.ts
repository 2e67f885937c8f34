import { FleetBus } from './fleet-bus';
import type { FleetChannel } from './fleet-channel';

/** The {@link FleetBus} of one process: events reach this instance's listeners. @internal */
export class MemoryFleetBus extends FleetBus {
  readonly fleet = false;

  publish<T>(channel: FleetChannel<T>, event: T): void {
    this.deliverHere(channel, event);
  }
}
