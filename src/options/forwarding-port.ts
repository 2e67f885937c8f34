/**
 * Nest calls these on every provider value that has them; a port's own instance gets them from its
 * own provider (or from the module, for what it owns), never a second time through the port.
 */
const HIDDEN = new Set<PropertyKey>([
  'then',
  'onModuleInit',
  'onApplicationBootstrap',
  'onModuleDestroy',
  'beforeApplicationShutdown',
  'onApplicationShutdown',
]);

/** Each forwarding object's chosen instance, once filled. */
const forwarding = new WeakMap<object, () => object | undefined>();

/** Whether `value` is a port's forwarding object (so not an application's own instance). @internal */
export function isForwardingPort(value: unknown): boolean {
  return typeof value === 'object' && value !== null && forwarding.has(value);
}

/**
 * The instance behind `value` once its port is filled (remembered: a port is filled once), or
 * `value` itself when it is no port's forwarding object: for a call path that reaches a port on
 * every request, so that it pays the forwarding once.
 * @internal
 */
export function portInstanceOnceFilled<T extends object>(value: T): () => T {
  const chosen = forwarding.get(value);
  if (chosen === undefined) return () => value;
  let filled: T | undefined;
  return () => (filled ??= chosen() as T | undefined) ?? value;
}

/**
 * The value a port's provider gives: an object that forwards every property to the instance
 * `fill` sets once the module has chosen it (methods bound to it, `instanceof` answered by its
 * class). Used before that, it says so.
 * @internal
 */
export function forwardingPort<T extends object>(
  option: string,
): { value: T; fill: (instance: T) => void } {
  let target: T | undefined;
  const bound = new Map<PropertyKey, unknown>();
  const instance = (): T => {
    if (target === undefined)
      throw new Error(`McpModule has not finished initializing (${option} is not filled yet)`);
    return target;
  };
  const value = new Proxy(Object.create(null) as T, {
    get(_, key) {
      // Nest reads `constructor` of a factory's value while it builds instances (Nest 12's
      // discovery): unfilled, the port has none.
      if (HIDDEN.has(key) || (key === 'constructor' && target === undefined)) return undefined;
      const of = instance();
      const property = Reflect.get(of, key, of) as unknown;
      if (typeof property !== 'function') return property;
      let method = bound.get(key);
      if (method === undefined) bound.set(key, (method = property.bind(of)));
      return method;
    },
    has: (_, key) => Reflect.has(instance(), key),
    getPrototypeOf: () => (target === undefined ? null : Reflect.getPrototypeOf(target)),
  });
  forwarding.set(value, () => target);
  return {
    value,
    fill: (chosen) => {
      target = chosen;
    },
  };
}
