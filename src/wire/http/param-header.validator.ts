import type { IncomingHttpHeaders } from 'node:http';

/** One `x-mcp-header` declaration of a tool's input schema. @internal */
export interface ParamHeaderDeclaration {
  /** Property path from `arguments`. */
  readonly path: readonly string[];
  /** The header suffix: the value travels as `Mcp-Param-<name>`. */
  readonly name: string;
  readonly type: string | undefined;
}

const BASE64_SENTINEL = /^=\?base64\?(.*)\?=$/;
const STRICT_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const CANONICAL_DECIMAL = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * Finds `x-mcp-header` properties reachable through chains of `properties` (SEP-2243).
 * @internal
 */
export function scanParamHeaders(schema: unknown, path: string[] = []): ParamHeaderDeclaration[] {
  const properties = (schema as { properties?: Record<string, unknown> } | null)?.properties;
  if (properties === null || typeof properties !== 'object') return [];
  const found: ParamHeaderDeclaration[] = [];
  for (const [key, property] of Object.entries(properties)) {
    const propertyPath = [...path, key];
    const header = (property as Record<string, unknown> | null)?.['x-mcp-header'];
    if (typeof header === 'string' && header !== '') {
      found.push({ path: propertyPath, name: header, type: (property as { type?: string }).type });
    }
    found.push(...scanParamHeaders(property, propertyPath));
  }
  return found;
}

/**
 * Decodes a header value: `=?base64?…?=` strictly, anything else literally; `undefined` when
 * invalid.
 * @internal
 */
export function decodeParamHeader(value: string): string | undefined {
  const sentinel = BASE64_SENTINEL.exec(value);
  if (!sentinel) return value;
  const encoded = sentinel[1];
  if (!STRICT_BASE64.test(encoded) || encoded.length % 4 !== 0) return undefined;
  return Buffer.from(encoded, 'base64').toString('utf8');
}

/** The argument at `path`, own properties only: an absent `toString` argument is absent. */
function valueAt(args: unknown, path: readonly string[]): unknown {
  let current = args;
  for (const key of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key))
      return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function matches(decoded: string, bodyValue: unknown, type: string | undefined): boolean {
  if ((type === 'integer' || type === 'number') && typeof bodyValue === 'number') {
    return CANONICAL_DECIMAL.test(decoded) && Number(decoded) === bodyValue;
  }
  return decoded === (typeof bodyValue === 'string' ? bodyValue : JSON.stringify(bodyValue));
}

/**
 * Checks the `Mcp-Param-*` headers of a `tools/call` against the arguments: each declared value in
 * the body needs its header, decoding to the same value. Returns the problem, or `undefined`.
 * @internal
 */
export function paramHeaderProblem(
  declarations: readonly ParamHeaderDeclaration[],
  args: unknown,
  headers: IncomingHttpHeaders,
): string | undefined {
  for (const declaration of declarations) {
    const headerName = `Mcp-Param-${declaration.name}`;
    const raw = headers[headerName.toLowerCase()];
    const headerValue = Array.isArray(raw) ? raw.join(',') : raw;
    const bodyValue = valueAt(args, declaration.path);
    if (bodyValue === undefined || bodyValue === null) {
      if (headerValue !== undefined) return `${headerName} is set but the argument is absent`;
      continue;
    }
    if (headerValue === undefined) return `${headerName} header is missing`;
    const decoded = decodeParamHeader(headerValue.trim());
    if (decoded === undefined) return `${headerName} carries invalid base64`;
    if (!matches(decoded, bodyValue, declaration.type))
      return `${headerName} does not match the argument`;
  }
  return undefined;
}
