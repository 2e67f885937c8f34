/** The 2025-era related-task `_meta` key, which the SDK's params schemas type. */
const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * An object a zod record with string keys accepts: plain (a prototype nothing has changed),
 * string keys only.
 */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return (
    isObject(value) &&
    Object.getPrototypeOf(value) === Object.prototype &&
    !Object.hasOwn(value, 'constructor') &&
    Object.getOwnPropertySymbols(value).length === 0
  );
}

function isOptionalString(value: unknown): boolean {
  return value === undefined || typeof value === 'string';
}

/** A `_meta` the SDK's request meta schema accepts: absent, or without typed members it refuses. */
function isPlainRequestMeta(meta: unknown): boolean {
  if (meta === undefined) return true;
  if (!isObject(meta) || meta[RELATED_TASK_META_KEY] !== undefined) return false;
  const token = meta.progressToken;
  return token === undefined || typeof token === 'string' || Number.isSafeInteger(token);
}

/** Whether every own member is a string (what a record of strings reads). */
function allStrings(record: Record<string, unknown>): boolean {
  for (const key of Object.keys(record)) if (typeof record[key] !== 'string') return false;
  return true;
}

/**
 * Whether `params` of `method` are certainly what the SDK's params schema accepts, by plain
 * checks of the shape well-formed calls have. `false` says nothing: the schema then decides (and
 * names the field). Methods it does not know (completion/complete among them) are always `false`.
 * @internal
 */
export function paramsSurelyWellFormed(method: string, params: unknown): boolean {
  if (!isObject(params) || !isPlainRequestMeta(params._meta)) return false;
  switch (method) {
    case 'tools/call':
      return (
        typeof params.name === 'string' &&
        params.task === undefined &&
        (params.arguments === undefined || isPlainRecord(params.arguments))
      );
    case 'prompts/get':
      return (
        typeof params.name === 'string' &&
        (params.arguments === undefined ||
          (isPlainRecord(params.arguments) && allStrings(params.arguments)))
      );
    case 'resources/read':
      return typeof params.uri === 'string';
    case 'tools/list':
    case 'prompts/list':
    case 'resources/list':
    case 'resources/templates/list':
      return isOptionalString(params.cursor);
    default:
      return false;
  }
}
