import { LosslessNumber } from 'lossless-json';
import { frozenCopy } from '../kit/deep-freeze';
import type { McpElicitValue, McpInputResponse } from './mcp-input-response';

function isObject(value: unknown): value is Record<string, unknown> {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    !(value instanceof LosslessNumber)
  );
}

function plainString(value: unknown): value is string {
  return typeof value === 'string';
}

function parseElicitation(value: Record<string, unknown>): McpInputResponse | undefined {
  const { action, content } = value;
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel') return undefined;
  if (content === undefined) return { kind: 'elicitation', action, content: undefined };
  if (!isObject(content) || action !== 'accept') return undefined;
  // Null prototype: a "__proto__" field is data, never a prototype.
  const checked: Record<string, McpElicitValue> = Object.create(null) as Record<
    string,
    McpElicitValue
  >;
  for (const [field, fieldValue] of Object.entries(content)) {
    const valid =
      typeof fieldValue === 'string' ||
      typeof fieldValue === 'boolean' ||
      fieldValue instanceof LosslessNumber ||
      (Array.isArray(fieldValue) && fieldValue.every(plainString));
    if (!valid) return undefined;
    checked[field] = fieldValue as McpElicitValue;
  }
  return { kind: 'elicitation', action, content: Object.freeze(checked) };
}

function parseSampling(value: Record<string, unknown>): McpInputResponse | undefined {
  const { role, content, model, stopReason } = value;
  if ((role !== 'user' && role !== 'assistant') || typeof model !== 'string') return undefined;
  const contentValid = isObject(content)
    ? typeof content.type === 'string'
    : Array.isArray(content) &&
      content.every((block) => isObject(block) && typeof block.type === 'string');
  if (!contentValid || (stopReason !== undefined && typeof stopReason !== 'string'))
    return undefined;
  return {
    kind: 'sampling',
    role,
    content: frozenCopy(content),
    model,
    stopReason: stopReason as string | undefined,
  };
}

function parseRoots(value: Record<string, unknown>): McpInputResponse | undefined {
  const { roots } = value;
  if (!Array.isArray(roots)) return undefined;
  const checked: { uri: string; name?: string }[] = [];
  for (const root of roots) {
    if (
      !isObject(root) ||
      typeof root.uri !== 'string' ||
      (root.name !== undefined && typeof root.name !== 'string')
    )
      return undefined;
    checked.push(
      root.name === undefined ? { uri: root.uri } : { uri: root.uri, name: root.name as string },
    );
  }
  return { kind: 'roots', roots: frozenCopy(checked) };
}

type ResponseParser = (value: Record<string, unknown>) => McpInputResponse | undefined;

const PARSERS: ReadonlyMap<string, ResponseParser> = new Map<
  McpInputResponse['kind'],
  ResponseParser
>([
  ['elicitation', parseElicitation],
  ['sampling', parseSampling],
  ['roots', parseRoots],
]);

/**
 * Reads one input response against the protocol's result union, or `undefined` when it matches
 * none of elicitation, sampling or roots. `expected`, when known, restricts it to one kind (an
 * unknown kind matches nothing).
 * @internal
 */
export function parseInputResponse(
  value: unknown,
  expected?: McpInputResponse['kind'],
): McpInputResponse | undefined {
  if (!isObject(value)) return undefined;
  if (expected !== undefined) return PARSERS.get(expected)?.(value);
  return parseElicitation(value) ?? parseSampling(value) ?? parseRoots(value);
}
