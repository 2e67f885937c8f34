import { adapterKeyPrefix } from '../../../extension-api';

/** Options of {@link BullMqTaskRunner}. @publicApi */
export interface BullMqTaskRunnerOptions {
  /** The BullMQ queue every instance of the fleet shares. Default `nestjs-mcp-tasks`. */
  queueName?: string;
  /**
   * BullMQ's key prefix; the runner's own keys and channel live under it too. Default `bull`, on a
   * Redis Cluster `{bull}`: there it needs a hash tag (BullMQ's scripts touch many keys of a queue).
   */
  prefix?: string;
  /** Steps this instance runs at once. Default 10. */
  concurrency?: number;
  /** Whether this instance runs steps; `false` only enqueues and cancels them. Default `true`. */
  worker?: boolean;
  /** How long a worker's lock on a step lasts unless renewed (half of it); a dead worker's step is free again after it. Default 30,000 ms. */
  lockDurationMs?: number;
  /** How often workers look for steps whose lock lapsed (stalled) and queue them again. Default 30,000 ms. */
  stalledIntervalMs?: number;
  /** Times a step may stall (its worker died) and be queued again before it fails. Default 2. */
  maxStalledCount?: number;
  /** Runs of a step whose work threw (not the task's own error: that is an outcome) before it fails. Default 3. */
  attempts?: number;
  /** First delay before such a retry, doubling each time. Default 1,000 ms. */
  backoffMs?: number;
  /** How long `close()` waits for aborted steps to hand themselves back before it lets their locks lapse. Default 5,000 ms. */
  closeTimeoutMs?: number;
}

/** The options with their defaults, checked. @internal */
export function resolveOptions(
  options: BullMqTaskRunnerOptions,
  client: unknown,
): Required<BullMqTaskRunnerOptions> {
  const resolved: Required<BullMqTaskRunnerOptions> = {
    queueName: options.queueName ?? 'nestjs-mcp-tasks',
    prefix: adapterKeyPrefix(client, options.prefix, 'bull', 'BullMqTaskRunner'),
    concurrency: options.concurrency ?? 10,
    worker: options.worker ?? true,
    lockDurationMs: options.lockDurationMs ?? 30_000,
    stalledIntervalMs: options.stalledIntervalMs ?? 30_000,
    maxStalledCount: options.maxStalledCount ?? 2,
    attempts: options.attempts ?? 3,
    backoffMs: options.backoffMs ?? 1_000,
    closeTimeoutMs: options.closeTimeoutMs ?? 5_000,
  };
  if (!/^[A-Za-z0-9_.-]{1,100}$/.test(resolved.queueName))
    throw new RangeError('BullMqTaskRunner: queueName must be 1 to 100 of A-Z a-z 0-9 _ . -');
  if (!/^[A-Za-z0-9_.{}-]{1,100}$/.test(resolved.prefix))
    throw new RangeError('BullMqTaskRunner: prefix must be 1 to 100 of A-Z a-z 0-9 _ . - { }');
  for (const name of ['concurrency', 'lockDurationMs', 'stalledIntervalMs', 'attempts'] as const)
    if (!Number.isSafeInteger(resolved[name]) || resolved[name] <= 0)
      throw new RangeError(`BullMqTaskRunner: ${name} must be a positive integer`);
  for (const name of ['maxStalledCount', 'backoffMs', 'closeTimeoutMs'] as const)
    if (!Number.isSafeInteger(resolved[name]) || resolved[name] < 0)
      throw new RangeError(`BullMqTaskRunner: ${name} must be a non-negative integer`);
  return resolved;
}
