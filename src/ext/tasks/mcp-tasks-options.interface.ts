import type { TaskRunner } from './runner/task-runner.interface';
import type { TaskStore } from './store/task-store.interface';

/**
 * The tasks extension (`io.modelcontextprotocol/tasks`): how long tasks live, where they are kept
 * and where they run. See `docs/tasks.md`.
 * @publicApi
 */
export interface McpTasksOptions {
  /**
   * Serves the tasks extension; `false` leaves it out (with `forRoot`, none of its providers is
   * created), and a tool that declares `taskSupport: 'required'` then fails startup. Default `true`.
   */
  enabled?: boolean;
  /** Lifetime of a task from its creation, in ms (its `ttlMs`). Default 3,600,000 (1 hour). */
  ttlMs?: number;
  /** Longest lifetime a tool's `taskTtlMs` may ask for, in ms. Default 86,400,000 (24 hours). */
  maxTtlMs?: number;
  /** Poll interval suggested to clients, in ms. Default 1,000. */
  pollIntervalMs?: number;
  /** Largest result a task keeps, in JSON bytes; a bigger one fails the task. Default 1,048,576. */
  maxResultBytes?: number;
  /** Largest total of answers a task keeps, in JSON bytes; more is refused with -32602. Default 262,144. */
  maxInputResponseBytes?: number;
  /**
   * Unexpired tasks one caller (authorization partition) may hold at once; past it, creating one
   * answers -32000 until some expire. Callers the partition resolver cannot tell apart
   * (`anonymous`) share one allowance. Enforced by the module's stores. Default 100.
   */
  maxTasksPerCaller?: number;
  /**
   * Largest call a task keeps to run its later steps — its name, arguments, `_meta` and other
   * params, in JSON bytes; a bigger task-creating call is refused with -32602 before anything
   * runs. Default 262,144.
   */
  maxCallBytes?: number;
  /**
   * Unexpired tasks the module's own store (memory or Redis) holds at once; near full, callers
   * holding more than their shrinking share are refused first. Default 10,000.
   */
  maxTasks?: number;
  /**
   * Bytes the module's own store may hold: estimated heap in memory (JSON bytes plus 64 per JSON
   * value), JSON bytes in Redis. Default 1,073,741,824 (1 GiB).
   */
  maxStoreBytes?: number;
  /** Bytes of the module's own store one caller's tasks may hold. Default 67,108,864 (64 MiB). */
  maxStoreBytesPerCaller?: number;
  /**
   * Where tasks are kept. Default: a `TaskStore` the application provides in any module, else a
   * `RedisTaskStore` on the module's connection when `redis` is set, else a `MemoryTaskStore`.
   */
  store?: TaskStore;
  /** Where task steps run. Default: an `InProcessTaskRunner` (this process). */
  runner?: TaskRunner;
}
