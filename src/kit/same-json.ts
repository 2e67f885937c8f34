/** How deep two values are compared before they count as different (client envelopes are shallow). */
const MAX_DEPTH = 16;

/**
 * Whether two parsed JSON values are equal member by member (own members, any order): what a
 * decision made on one's JSON text would decide on the other too. Values nested deeper than
 * {@link MAX_DEPTH} count as different.
 * @internal
 */
export function sameJson(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (depth > MAX_DEPTH || a === null || b === null) return false;
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++)
      if (!sameJson(a[index], b[index], depth + 1)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let members = 0;
  for (const name in left) {
    if (!Object.hasOwn(left, name)) continue;
    members++;
    if (!Object.hasOwn(right, name) || !sameJson(left[name], right[name], depth + 1)) return false;
  }
  for (const name in right) if (Object.hasOwn(right, name)) members--;
  return members === 0;
}
