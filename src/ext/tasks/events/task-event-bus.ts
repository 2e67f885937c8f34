/** A task's status changed: which task, and the version that change was written as. @internal */
export interface TaskStatusEvent {
  readonly taskId: string;
  readonly version: number;
}

/** What a subscriber of the {@link TaskEventBus} is told. @internal */
export interface TaskEventListener {
  /** A task's status changed, here or on another instance. */
  status(event: TaskStatusEvent): void;
  /** Events may have been missed (the bus was cut off and is back): re-read what is followed. */
  resync(): void;
}

/**
 * Carries task status changes to the listen streams of every instance. Only ids and versions
 * travel: a listener re-reads the task from the store, with its own partition check, so nothing
 * about a task crosses the bus that the store does not already hold. Also the DI token.
 * @internal
 */
export abstract class TaskEventBus {
  private readonly listeners = new Set<TaskEventListener>();

  /** Announces a status change to this instance's listeners and, on a fleet, to the others'. */
  abstract publish(event: TaskStatusEvent): void;

  /** Starts telling `listener` about status changes; answers how to stop. */
  subscribe(listener: TaskEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  protected deliver(event: TaskStatusEvent): void {
    for (const listener of this.listeners) listener.status(event);
  }

  protected resyncAll(): void {
    for (const listener of this.listeners) listener.resync();
  }
}
