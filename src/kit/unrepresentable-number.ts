import { clip } from './clip';

/** Longest path named; past it the path is cut (a client chooses the keys). */
const MAX_PATH = 128;
/** Deepest nesting walked (bodies are nested at most `json.maxDepth`, 64 by default, deep). */
const MAX_DEPTH = 256;

function member(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/**
 * Where `value` holds a number a double cannot hold — one whose text parsed to `Infinity`, such as
 * `1e400` or a 400-digit integer — as a path from `path` (`params.arguments.amount`,
 * `params._meta.x[2]`), clipped for echoing; `undefined` when it holds none. Such a number cannot
 * be bound, kept or compared as the client wrote it.
 * @internal
 */
export function unrepresentableNumberAt(value: unknown, path: string): string | undefined {
  const found = walk(value, path, 0);
  return found === undefined ? undefined : clip(found, MAX_PATH);
}

function walk(value: unknown, path: string, depth: number): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : path;
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = walk(value[index], `${path}[${index}]`, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    // Paths of long keys are cut as they grow, so a deep hostile path costs no more than its clip.
    const found = walk(item, member(path, key).slice(0, MAX_PATH + 1), depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * {@link unrepresentableNumberAt} over a request's params (`params.arguments…`, `params._meta…`,
 * any other param), leaving out `inputResponses`, whose numbers the HTTP layer keeps exact.
 * @internal
 */
export function unrepresentableParamAt(
  params: Readonly<Record<string, unknown>>,
): string | undefined {
  for (const [key, value] of Object.entries(params)) {
    if (key === 'inputResponses') continue;
    const found = unrepresentableNumberAt(value, member('params', key));
    if (found !== undefined) return found;
  }
  return undefined;
}
