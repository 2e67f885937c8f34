// The clients of the user-app test, as users run them: the official v2 client (pinned to
// 2026-07-28, or in its default mode, which opens a 2025-11-25 session), the v1 SDK client, and a
// simulated user who answers their questions — forms as a person would, a sign-in URL by letting
// "the browser" come back to the app's callback route with the flow it names.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { SignJWT } from 'jose';
import { TextEncoder } from 'node:util';
import { bearer } from './wire.mjs';

const CLIENT_INFO = { name: 'user-app-test', version: '1.0.0' };
/** What the SDK clients declare: they can show a form and open a URL. */
export const ASKS = { elicitation: { form: {}, url: {} } };

/** Access tokens as the app's identity provider would sign them (HS256, the app's secret). */
export class TokenIssuer {
  constructor(secret) {
    this.key = new TextEncoder().encode(secret);
  }

  /** A token for user `sub` called `username`; `key` signs it instead of the app's secret. */
  sign(sub, username, key = this.key) {
    return new SignJWT({ username })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(sub)
      .setIssuer('https://id.example.com/')
      .setAudience('user-app')
      .setIssuedAt()
      .setExpirationTime('15m')
      .sign(key);
  }
}

const accept = (content) => ({ action: 'accept', content });

/** Answers every question the user app asks; keeps each question's params in `asked`. */
export class SimulatedUser {
  constructor(appOrigin) {
    this.appOrigin = appOrigin;
    this.asked = [];
  }

  async answer(params) {
    this.asked.push(params);
    if (params.mode === 'url') return this.signIn(params.url);
    const message = String(params.message);
    if (message.startsWith('Delete ')) return accept({ confirm: true });
    if (message.startsWith('When do you leave')) return accept({ departure: '2026-09-01' });
    if (message.startsWith('Economy or business')) return accept({ cabin: 'business' });
    if (message.startsWith('Book ')) return accept({ book: true });
    return { action: 'decline' };
  }

  /** The browser: the app's page and GitHub end at the app's callback route, with the flow. */
  async signIn(url) {
    const flow = new URL(url).searchParams.get('flow') ?? '';
    const callback = await fetch(
      `${this.appOrigin}/connect/github/callback?flow=${encodeURIComponent(flow)}`,
    );
    return callback.ok ? { action: 'accept' } : { action: 'cancel' };
  }
}

/**
 * A fetch for a client's transport that records every JSON-RPC POST: the request's Authorization
 * header and message, and the answer's status and messages (read from a copy, so a stream reaches
 * the client as it comes). `settled()` resolves once every answer was read.
 */
export function recordingFetch() {
  const exchanges = [];
  const reading = [];
  const recording = async (input, init) => {
    const response = await fetch(input, init);
    if (init?.method !== 'POST' || typeof init.body !== 'string') return response;
    const exchange = {
      authorization: new globalThis.Headers(init.headers).get('authorization') ?? undefined,
      sent: JSON.parse(init.body),
      status: response.status,
      answers: [],
    };
    exchanges.push(exchange);
    reading.push(
      response
        .clone()
        .text()
        .then(
          (text) => {
            const events = text.split('\n').filter((line) => line.startsWith('data:'));
            const bodies = events.length > 0 ? events.map((line) => line.slice(5).trim()) : [text];
            exchange.answers = bodies.filter((body) => body !== '').map((body) => JSON.parse(body));
          },
          () => undefined,
        ),
    );
    return response;
  };
  return { fetch: recording, exchanges, settled: () => Promise.all(reading) };
}

/** A connected client and how to end it: its session deleted (2025 era), then closed. */
function connected(client, transport) {
  return {
    client,
    async close() {
      if (transport.sessionId !== undefined) await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}

/** The v1 SDK client (`@modelcontextprotocol/sdk` 1.x): a 2025-11-25 session. */
export async function connectV1(url, token, user, { fetch } = {}) {
  const client = new V1Client(CLIENT_INFO, { capabilities: ASKS });
  client.setRequestHandler(ElicitRequestSchema, (request) => user.answer(request.params));
  const transport = new V1Transport(url, { requestInit: { headers: bearer(token) }, fetch });
  await client.connect(transport);
  return connected(client, transport);
}

/** The v2 client in its default mode: a 2025-11-25 session declaring `capabilities`. */
export async function connectV2Session(url, token, user, { capabilities = ASKS, fetch } = {}) {
  const client = new Client(CLIENT_INFO, { capabilities });
  if (capabilities.elicitation)
    client.setRequestHandler('elicitation/create', (request) => user.answer(request.params));
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: bearer(token) },
    fetch,
  });
  await client.connect(transport);
  return connected(client, transport);
}

/** The v2 client pinned to 2026-07-28: stateless, every round a request of its own. */
export async function connectModern(url, token, user, { fetch } = {}) {
  const client = new Client(CLIENT_INFO, {
    versionNegotiation: { mode: { pin: '2026-07-28' } },
    capabilities: ASKS,
  });
  client.setRequestHandler('elicitation/create', (request) => user.answer(request.params));
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: bearer(token) },
    fetch,
  });
  await client.connect(transport);
  return connected(client, transport);
}

/** The text of a tool result's first content block. */
export function textOf(result) {
  const block = result?.content?.[0];
  if (block?.type !== 'text') throw new Error(`not a text result: ${JSON.stringify(result)}`);
  return block.text;
}
