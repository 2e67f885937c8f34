import type {
  CallToolResult,
  GetPromptResult,
  ReadResourceResult,
} from '@modelcontextprotocol/server';

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}

/** Turns what a tool method returned into a `CallToolResult`. @internal */
export function normalizeToolResult(value: unknown, hasOutputSchema: boolean): CallToolResult {
  if (isObject(value) && Array.isArray(value.content)) return value as CallToolResult;
  if (hasOutputSchema && isObject(value)) {
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  }
  return { content: [{ type: 'text', text: asText(value) }] };
}

/** Turns what a prompt method returned into a `GetPromptResult`. @internal */
export function normalizePromptResult(value: unknown): GetPromptResult {
  if (isObject(value) && Array.isArray(value.messages)) return value as GetPromptResult;
  return { messages: [{ role: 'user', content: { type: 'text', text: asText(value) } }] };
}

/** Turns what a resource method returned into a `ReadResourceResult` for `uri`. @internal */
export function normalizeResourceResult(
  value: unknown,
  uri: string,
  mimeType: string | undefined,
): ReadResourceResult {
  if (isObject(value) && Array.isArray(value.contents)) return value as ReadResourceResult;
  const base = mimeType === undefined ? { uri } : { uri, mimeType };
  if (value instanceof Uint8Array) {
    return { contents: [{ ...base, blob: Buffer.from(value).toString('base64') }] };
  }
  return { contents: [{ ...base, text: asText(value) }] };
}
