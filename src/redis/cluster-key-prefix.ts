/**
 * Whether `prefix` holds a Redis Cluster hash tag: a `{` followed, later, by a `}` with at least one
 * character between. Only the tag is hashed then, so every key under the prefix lands in one slot.
 * @internal
 */
export function hasHashTag(prefix: string): boolean {
  const open = prefix.indexOf('{');
  if (open < 0) return false;
  const close = prefix.indexOf('}', open + 1);
  return close > open + 1;
}

/**
 * `prefix` with a hash tag: as it is when it has one, else wrapped whole (a trailing `:` kept
 * outside), so `nestjs-mcp:` becomes `{nestjs-mcp}:`. `undefined` for the empty prefix, which has
 * nothing to tag.
 * @internal
 */
export function withHashTag(prefix: string): string | undefined {
  if (hasHashTag(prefix)) return prefix;
  const base = prefix.endsWith(':') ? prefix.slice(0, -1) : prefix;
  if (base === '') return undefined;
  return `{${base}}${prefix.slice(base.length)}`;
}

/** Whether `client` is an ioredis `Cluster`. @internal */
export function isClusterClient(client: unknown): boolean {
  return (client as { isCluster?: unknown } | null)?.isCluster === true;
}

/**
 * The key prefix a Redis adapter uses on `client`: `given`, or `fallback` when none was given. On a
 * cluster the fallback is given a hash tag, and a given prefix without one is refused — each
 * adapter's scripts touch several keys under it, which a cluster allows only within one slot.
 * @internal
 */
export function adapterKeyPrefix(
  client: unknown,
  given: string | undefined,
  fallback: string,
  adapter: string,
): string {
  if (given !== undefined && typeof given !== 'string')
    throw new TypeError(`${adapter}: keyPrefix must be a string`);
  if (!isClusterClient(client)) return given ?? fallback;
  if (given === undefined) return withHashTag(fallback) as string;
  if (hasHashTag(given)) return given;
  throw new TypeError(
    `${adapter}: on a Redis Cluster the keyPrefix needs a hash tag, e.g. "${withHashTag(given) ?? '{app}:'}", so that each script's keys share one slot`,
  );
}
