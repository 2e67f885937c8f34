import {
  Client,
  StreamableHTTPClientTransport,
  type ClientCapabilities,
} from '@modelcontextprotocol/client';
import request from 'supertest';

export const PROTOCOL_VERSION = '2026-07-28';

/** Extra options of {@link connectClient}. */
export interface ConnectOptions {
  /** Capabilities the client declares (and so sends in every request's `_meta` envelope). */
  capabilities?: ClientCapabilities;
  /** Multi-round-trip auto-fulfilment (`autoFulfill`, `maxRounds`). */
  inputRequired?: { autoFulfill?: boolean; maxRounds?: number };
  /** Registers request handlers (`elicitation/create`, …) before the client connects. */
  setup?: (client: Client) => void;
  /**
   * Leaves the revision to the client's own negotiation (its default mode: the plain 2025
   * `initialize`, a 2025-era session) instead of pinning 2026-07-28.
   */
  negotiate?: boolean;
  /** `clientInfo.name`; `nestjs-mcp-e2e` by default. */
  name?: string;
}

/**
 * Connects an official SDK client, pinned to the 2026-07-28 revision unless `options.negotiate`;
 * close it when done.
 */
export async function connectClient(
  url: URL,
  headers: Record<string, string> = {},
  options: ConnectOptions = {},
): Promise<Client> {
  const client = new Client(
    { name: options.name ?? 'nestjs-mcp-e2e', version: '1.0.0' },
    {
      ...(options.negotiate ? {} : { versionNegotiation: { mode: { pin: PROTOCOL_VERSION } } }),
      ...(options.capabilities === undefined ? {} : { capabilities: options.capabilities }),
      ...(options.inputRequired === undefined ? {} : { inputRequired: options.inputRequired }),
    },
  );
  options.setup?.(client);
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

/** What a form-answering user replies to every `elicitation/create` (see {@link formAnsweringClient}). */
export type FormAnswer =
  | { action: 'accept'; content: Record<string, string | number | boolean | string[]> }
  | { action: 'decline' | 'cancel' };

/**
 * An official client (see {@link connectClient}) that declares form elicitation and whose user
 * answers every form with `answer`; `asked` collects the forms' messages in the order shown.
 */
export async function formAnsweringClient(
  url: URL,
  answer: FormAnswer,
  headers: Record<string, string> = {},
): Promise<{ client: Client; asked: string[] }> {
  const asked: string[] = [];
  const client = await connectClient(url, headers, {
    capabilities: { elicitation: { form: {} } },
    setup: (c) =>
      c.setRequestHandler('elicitation/create', (request) => {
        asked.push((request.params as { message: string }).message);
        return answer;
      }),
  });
  return { client, asked };
}

/** A 2026-07-28 JSON-RPC request body, with the `_meta` envelope every modern request carries. */
export function rpcBody(
  method: string,
  params: Record<string, unknown> = {},
  id: number | string = 1,
  clientCapabilities: Record<string, unknown> = {},
  extraMeta: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientCapabilities': clientCapabilities,
        ...extraMeta,
      },
    },
  });
}

/** The JSON-RPC error a client call rejected with. */
export async function rpcError(
  call: Promise<unknown>,
): Promise<{ code: number; message: string; data?: unknown }> {
  const error: unknown = await call.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof Error) || typeof (error as { code?: unknown }).code !== 'number') {
    throw new Error(`expected a JSON-RPC error, got ${String(error)}`);
  }
  return error as Error & { code: number; data?: unknown };
}

/** The HTTP headers of a 2026-07-28 request for `method` (and its `Mcp-Name`, when it has one). */
export function rpcHeaders(method: string, name?: string): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': PROTOCOL_VERSION,
    'Mcp-Method': method,
    ...(name === undefined ? {} : { 'Mcp-Name': name }),
  };
}

/** Options of one raw JSON-RPC round ({@link rawRound}). */
export interface RawRoundOptions {
  /** JSON-RPC id (a fresh one per round, as the protocol requires). */
  id?: number | string;
  /** Further `_meta` members (client info, progress token, log level). */
  extraMeta?: Record<string, unknown>;
  /** `clientCapabilities` of the `_meta` envelope; `{}` when omitted. */
  capabilities?: Record<string, unknown>;
  /** `params.inputResponses`, sent exactly as given (omitted when `undefined`). */
  inputResponses?: unknown;
  /** `params.requestState`, sent exactly as given (omitted when `undefined`). */
  requestState?: unknown;
  /** Extra HTTP headers (e.g. `Authorization`). */
  headers?: Record<string, string>;
  /**
   * Replacements applied to the JSON text before sending: each key (e.g. `"@amount"`, a JSON
   * string token) is replaced by its value verbatim, so numbers can be written as exact text.
   */
  rawTokens?: Record<string, string>;
}

/** What a raw round answered. */
export interface RawRoundResponse {
  status: number;
  /** The HTTP response headers, names in lower case. */
  headers: Record<string, string>;
  /** The response text, exactly as received. */
  text: string;
  /** The parsed JSON-RPC response. */
  body: {
    jsonrpc: '2.0';
    id: number | string | null;
    result?: Record<string, unknown> & {
      resultType?: string;
      requestState?: string;
      inputRequests?: Record<string, unknown>;
    };
    error?: { code: number; message: string; data?: unknown };
  };
}

/** The `Mcp-Name` header value of a request (tool or prompt name, resource URI). */
function nameOf(method: string, params: Record<string, unknown>): string | undefined {
  if (method === 'resources/read') return params.uri as string;
  if (method === 'tools/call' || method === 'prompts/get') return params.name as string;
  if (method.startsWith('tasks/') && typeof params.taskId === 'string') return params.taskId;
  return undefined;
}

let nextId = 1000;

/** A fresh JSON-RPC id, unique within the test process. */
export function freshId(): number {
  return nextId++;
}

/**
 * Sends one 2026-07-28 request over plain HTTP and returns the HTTP status and JSON-RPC response,
 * byte for byte what any client would see.
 */
export async function rawRound(
  url: URL,
  method: string,
  params: Record<string, unknown>,
  options: RawRoundOptions = {},
): Promise<RawRoundResponse> {
  const full: Record<string, unknown> = { ...params };
  if (options.inputResponses !== undefined) full.inputResponses = options.inputResponses;
  if (options.requestState !== undefined) full.requestState = options.requestState;
  let text = rpcBody(
    method,
    full,
    options.id ?? freshId(),
    options.capabilities ?? {},
    options.extraMeta ?? {},
  );
  for (const [token, replacement] of Object.entries(options.rawTokens ?? {})) {
    if (!text.includes(token)) throw new Error(`raw token ${token} not found in the request body`);
    text = text.split(token).join(replacement);
  }
  const response = await request(url.origin)
    .post(url.pathname)
    .set({ ...rpcHeaders(method, nameOf(method, params)), ...options.headers })
    .send(text);
  return {
    status: response.status,
    headers: response.headers as Record<string, string>,
    text: response.text,
    body: JSON.parse(response.text) as RawRoundResponse['body'],
  };
}

/** `tools/call` of `name` with `args` over plain HTTP. */
export function rawToolCall(
  url: URL,
  name: string,
  args: Record<string, unknown> | undefined,
  options: RawRoundOptions = {},
): Promise<RawRoundResponse> {
  return rawRound(
    url,
    'tools/call',
    args === undefined ? { name } : { name, arguments: args },
    options,
  );
}

/** The text of the first content block of a complete tool result. */
export function resultText(response: RawRoundResponse): string {
  const result = response.body.result as
    { resultType?: string; content?: { type: string; text?: string }[] } | undefined;
  if (!result) throw new Error(`expected a result, got ${response.text}`);
  const block = result.content?.[0];
  if (block?.type !== 'text' || block.text === undefined)
    throw new Error(`expected a text result, got ${response.text}`);
  return block.text;
}

/** The key id a sealed state names (its second dot-separated part). */
export function kidOf(state: string): string {
  return Buffer.from(state.split('.')[1], 'base64url').toString('latin1');
}

/** The sealed `requestState` an `input_required` answer carries; throws, quoting it, when it has none. */
export function stateOf(response: RawRoundResponse): string {
  const state = response.body.result?.requestState;
  if (typeof state !== 'string') throw new Error(`expected a requestState, got ${response.text}`);
  return state;
}
