import type { SessionEvent, SessionEventOrigin } from './session-event';

/** What a subscriber of the {@link SessionEventBus} is told. @internal */
export type SessionEventListener = (event: SessionEvent, origin: SessionEventOrigin) => void;

/**
 * Carries {@link SessionEvent}s to every instance: in one process it is a list of listeners; on a
 * fleet the same events travel over Redis pub/sub, authenticated under the keyring. Also the DI
 * token.
 * @internal
 */
export abstract class SessionEventBus {
  private readonly listeners = new Set<SessionEventListener>();

  /** Tells this instance's listeners and, on a fleet, every other instance's. */
  abstract publish(event: SessionEvent): void;

  /** Whether events reach other instances (a fleet sharing Redis). */
  abstract readonly fleet: boolean;

  /** Starts telling `listener` about events; answers how to stop. */
  subscribe(listener: SessionEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells this instance's listeners only (a change every instance makes for itself). */
  deliverHere(event: SessionEvent): void {
    this.deliver(event, 'local');
  }

  protected deliver(event: SessionEvent, origin: SessionEventOrigin): void {
    for (const listener of this.listeners) listener(event, origin);
  }
}
