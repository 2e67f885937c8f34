import { Client } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import { connectClient, type ConnectOptions } from './mcp';

/** The 2025 revision the session clients negotiate. */
export const SESSION_PROTOCOL_VERSION = '2025-11-25';

/** A form answer: the content a user types for one elicitation. */
export type FormAnswer = {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
};

/**
 * What a user answers to each question of the sample's flows (`transfer_funds`, `collect_rounds`,
 * `onboard_user`, `confirm_delete`), by the question's message; every question asked is recorded.
 */
export class SampleUser {
  readonly asked: string[] = [];

  answer(message: string): FormAnswer {
    this.asked.push(message);
    if (/^Transfer .+ to .+\?$/.test(message))
      return { action: 'accept', content: { approve: true } };
    const round = /^Value (\d+) of \d+\?$/.exec(message);
    if (round) return { action: 'accept', content: { value: `v${round[1]}` } };
    if (message === 'What should we call you?')
      return { action: 'accept', content: { name: 'Ada' } };
    if (message.startsWith('Which plan would you like'))
      return { action: 'accept', content: { plan: 'team' } };
    if (message.startsWith('Delete ')) return { action: 'accept', content: { confirm: true } };
    return { action: 'decline' };
  }
}

const CLIENT_INFO = { name: 'nestjs-mcp-e2e-2025', version: '1.0.0' };
const FORM_CAPABILITIES = { elicitation: { form: {} } };

/** Options of an official v2 client whose user answers every form as `user` does. */
function answeringAs(user: SampleUser): ConnectOptions {
  return {
    capabilities: FORM_CAPABILITIES,
    setup: (client) =>
      client.setRequestHandler('elicitation/create', (req) =>
        user.answer((req.params as { message: string }).message),
      ),
  };
}

/**
 * The official v2 client in its default mode (the plain 2025 `initialize`), answering
 * elicitations as `user`; close it when done.
 */
export function connectV2Legacy(
  url: URL,
  user: SampleUser,
  headers: Record<string, string> = {},
): Promise<Client> {
  return connectClient(url, headers, {
    ...answeringAs(user),
    negotiate: true,
    name: CLIENT_INFO.name,
  });
}

/** The v1 SDK client (`@modelcontextprotocol/sdk` 1.x), answering elicitations as `user`. */
export async function connectV1(
  url: URL,
  user: SampleUser,
  headers: Record<string, string> = {},
): Promise<V1Client> {
  const client = new V1Client(CLIENT_INFO, { capabilities: FORM_CAPABILITIES });
  client.setRequestHandler(ElicitRequestSchema, (req) => user.answer(req.params.message));
  await client.connect(new V1Transport(url, { requestInit: { headers } }));
  return client;
}

/** The official v2 client pinned to 2026-07-28, answering `input_required` rounds as `user`. */
export function connectModern(
  url: URL,
  user: SampleUser,
  headers: Record<string, string> = {},
): Promise<Client> {
  return connectClient(url, headers, answeringAs(user));
}

/** The text of the first content block of a tool result. */
export function textOf(result: unknown): string {
  const block = (result as { content?: { type: string; text?: string }[] }).content?.[0];
  if (block?.type !== 'text' || block.text === undefined)
    throw new Error(`expected a text result, got ${JSON.stringify(result)}`);
  return block.text;
}

/** What a raw 2025-era POST got back: the HTTP status, its session header and its JSON-RPC messages. */
export interface SessionResponse {
  status: number;
  sessionId: string | undefined;
  /** The HTTP response headers, names in lower case. */
  headers: Record<string, string>;
  /** Every JSON-RPC message of the answer (one for a JSON answer, each event of a stream). */
  messages: {
    id?: unknown;
    method?: string;
    result?: unknown;
    error?: unknown;
    params?: unknown;
  }[];
  text: string;
}

/** The JSON-RPC messages of a response body, JSON or an SSE stream. */
function messagesOf(contentType: string | undefined, text: string): SessionResponse['messages'] {
  if (text === '') return [];
  if (contentType?.startsWith('application/json')) return [JSON.parse(text)];
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
    .filter((data) => data !== '')
    .map((data) => JSON.parse(data) as SessionResponse['messages'][number]);
}

/** One raw 2025-era POST (`initialize` when `sessionId` is undefined), byte for byte what a client sees. */
export async function sessionPost(
  url: URL,
  message: Record<string, unknown>,
  sessionId?: string,
  headers: Record<string, string> = {},
): Promise<SessionResponse> {
  const response = await request(url.origin)
    .post(url.pathname)
    .set({
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...(sessionId === undefined
        ? {}
        : { 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': SESSION_PROTOCOL_VERSION }),
      ...headers,
    })
    .buffer(true)
    .parse((res, done) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => done(null, text));
    })
    .send(JSON.stringify({ jsonrpc: '2.0', ...message }));
  const text = response.body as string;
  return {
    status: response.status,
    sessionId: response.headers['mcp-session-id'] as string | undefined,
    headers: response.headers as Record<string, string>,
    messages: messagesOf(response.headers['content-type'] as string | undefined, text),
    text,
  };
}

/**
 * The status a session's GET stream opens with (the stream itself is dropped at once), asked
 * with `headers` besides the session's.
 */
export async function sessionStreamStatus(
  url: URL,
  sessionId: string,
  headers: Record<string, string> = {},
): Promise<number> {
  const abort = new AbortController();
  const response = await fetch(url, {
    method: 'GET',
    signal: abort.signal,
    headers: {
      accept: 'text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': SESSION_PROTOCOL_VERSION,
      ...headers,
    },
  });
  abort.abort();
  return response.status;
}

/** Opens a session the raw way (`initialize` then `notifications/initialized`); its id. */
export async function openSession(
  url: URL,
  headers: Record<string, string> = {},
  capabilities: Record<string, unknown> = FORM_CAPABILITIES,
): Promise<string> {
  const opened = await initializeRaw(url, headers, capabilities);
  if (opened.status !== 200 || opened.sessionId === undefined)
    throw new Error(`initialize answered ${opened.status}: ${opened.text}`);
  await sessionPost(url, { method: 'notifications/initialized' }, opened.sessionId, headers);
  return opened.sessionId;
}

/** The JSON-RPC `initialize` request of the 2025 revision, to send over any transport. */
export function initializeMessage(
  capabilities: Record<string, unknown> = FORM_CAPABILITIES,
  id = 0,
): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: SESSION_PROTOCOL_VERSION, capabilities, clientInfo: CLIENT_INFO },
  };
}

/** A raw `initialize` of the 2025 revision. */
export function initializeRaw(
  url: URL,
  headers: Record<string, string> = {},
  capabilities: Record<string, unknown> = FORM_CAPABILITIES,
): Promise<SessionResponse> {
  return sessionPost(url, initializeMessage(capabilities), undefined, headers);
}
