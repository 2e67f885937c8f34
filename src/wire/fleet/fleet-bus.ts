import type { FleetChannel, FleetOrigin } from './fleet-channel';

/** What a listener of one {@link FleetChannel} is told. @internal */
export type FleetListener<T> = (event: T, origin: FleetOrigin) => void;

/**
 * Carries events between the instances of a fleet, on named channels ({@link fleetChannel}): the
 * core's changes (list changes, resource updates, run-time definitions) and each extension's own
 * (the 2025-era sessions' answers and cancels, the tasks' status changes). In one process it is a
 * list of listeners per channel; on a fleet (the `redis` option) the same events also travel over
 * one Redis pub/sub channel, each message tagged under the keyring. An event reaches only the
 * listeners of its own channel. Also the DI token.
 * @internal
 */
export abstract class FleetBus {
  private readonly listeners = new Map<string, Set<FleetListener<unknown>>>();
  private readonly channels = new Map<string, FleetChannel<unknown>>();
  private readonly resyncListeners = new Set<() => void>();

  /** Whether events reach other instances (a fleet sharing Redis). */
  abstract readonly fleet: boolean;

  /** Tells `channel`'s listeners here at once and, on a fleet, every other instance's. */
  abstract publish<T>(channel: FleetChannel<T>, event: T): void;

  /** Starts telling `listener` of `channel`'s events, here and elsewhere; answers how to stop. */
  subscribe<T>(channel: FleetChannel<T>, listener: FleetListener<T>): () => void {
    this.register(channel);
    const listeners = this.listeners.get(channel.name) ?? new Set<FleetListener<unknown>>();
    this.listeners.set(channel.name, listeners);
    const added = listener as FleetListener<unknown>;
    listeners.add(added);
    return () => listeners.delete(added);
  }

  /**
   * Calls `listener` when events may have been missed: the bus was cut off from the fleet and hears
   * it again (listeners re-read what they follow). Answers how to stop.
   */
  onResync(listener: () => void): () => void {
    this.resyncListeners.add(listener);
    return () => this.resyncListeners.delete(listener);
  }

  /** Tells `channel`'s listeners here only (a change every instance makes for itself). */
  deliverHere<T>(channel: FleetChannel<T>, event: T): void {
    this.register(channel);
    this.deliver(channel.name, event, 'local');
  }

  /** The channel of that name some publisher or listener here uses, if any. */
  protected channelNamed(name: string): FleetChannel<unknown> | undefined {
    return this.channels.get(name);
  }

  /** Makes `channel` known here; two different channels of one name are a mistake, refused. */
  protected register(channel: FleetChannel<unknown>): void {
    const known = this.channels.get(channel.name);
    if (known === channel) return;
    if (known)
      throw new Error(
        `Two fleet channels are named "${channel.name}": each needs a name of its own`,
      );
    this.channels.set(channel.name, channel);
  }

  protected deliver(name: string, event: unknown, origin: FleetOrigin): void {
    for (const listener of this.listeners.get(name) ?? []) listener(event, origin);
  }

  protected resyncAll(): void {
    for (const listener of this.resyncListeners) listener();
  }
}
