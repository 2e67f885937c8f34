import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { McpTaskRecord } from '../store/mcp-task.types';
import { TASK_STATUS_CHANNEL } from './task-status-channel';
import { GuardedTaskStore } from '../store/guarded-task-store';
import type { TaskStore } from '../store/task-store.interface';
import { FleetBus } from '../../../extension-api';

type Follower = (task: McpTaskRecord) => void;

/**
 * Turns the task status events of the fleet bus into tasks for whoever follows them on this
 * instance: one store read per event of a followed task, however many follow it, and never more
 * than one read of a task in flight (events that arrive meanwhile are answered by one more read).
 * A task the store no longer has, or cannot read, is not reported. Followers check the partition
 * themselves.
 * @internal
 */
@Injectable()
export class TaskStatusFeed implements OnModuleInit, OnModuleDestroy {
  private readonly followers = new Map<string, Set<Follower>>();
  /** Task ids being read, with whether another event asked for a fresh read meanwhile. */
  private readonly reading = new Map<string, boolean>();
  private readonly unsubscribe: (() => void)[] = [];

  constructor(
    private readonly bus: FleetBus,
    @Inject(GuardedTaskStore) private readonly store: TaskStore,
  ) {}

  onModuleInit(): void {
    this.unsubscribe.push(
      this.bus.subscribe(TASK_STATUS_CHANNEL, ({ taskId }) => this.read(taskId)),
      // Changes may have been missed while the bus was cut off: every followed task is read again.
      this.bus.onResync(() => {
        for (const taskId of this.followers.keys()) this.read(taskId);
      }),
    );
  }

  onModuleDestroy(): void {
    for (const stop of this.unsubscribe.splice(0)) stop();
  }

  /** Calls `follower` with each task of `taskIds` whose status changes; answers how to stop. */
  follow(taskIds: Iterable<string>, follower: Follower): () => void {
    const ids = [...new Set(taskIds)];
    for (const taskId of ids) {
      const set = this.followers.get(taskId) ?? new Set<Follower>();
      set.add(follower);
      this.followers.set(taskId, set);
    }
    return () => {
      for (const taskId of ids) {
        const set = this.followers.get(taskId);
        set?.delete(follower);
        if (set?.size === 0) this.followers.delete(taskId);
      }
    };
  }

  private read(taskId: string): void {
    if (!this.followers.has(taskId)) return;
    if (this.reading.has(taskId)) {
      this.reading.set(taskId, true);
      return;
    }
    this.reading.set(taskId, false);
    this.store
      .get(taskId)
      .then(
        (task) => {
          if (task) for (const follower of this.followers.get(taskId) ?? []) follower(task);
        },
        // The store has logged why; the next event, or the next resync, reads again.
        () => undefined,
      )
      .finally(() => {
        const again = this.reading.get(taskId);
        this.reading.delete(taskId);
        if (again) this.read(taskId);
      });
  }
}
