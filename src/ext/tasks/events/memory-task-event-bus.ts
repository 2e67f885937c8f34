import { TaskEventBus, type TaskStatusEvent } from './task-event-bus';

/** The {@link TaskEventBus} of one process: status changes reach this instance's listeners. @internal */
export class MemoryTaskEventBus extends TaskEventBus {
  publish(event: TaskStatusEvent): void {
    this.deliver(event);
  }
}
