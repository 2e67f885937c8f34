/**
 * A value now, or a promise of it: what a step returns when it only sometimes has to wait.
 * @internal
 */
export type MaybePromise<T> = T | Promise<T>;

/** Whether `value` is a promise (or any thenable) to wait for. @internal */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * `next(value)`: at once when `value` is already there, once it resolves when it is a promise.
 * Each promise and microtask turn costs a hot call path more than the work it wraps, so steps that
 * are synchronous in the common case stay synchronous.
 * @internal
 */
export function andThen<T, R>(
  value: MaybePromise<T>,
  next: (value: T) => MaybePromise<R>,
): MaybePromise<R> {
  return isPromiseLike(value) ? (value as Promise<T>).then(next) : next(value as T);
}
