import { Injectable, Module } from '@nestjs/common';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import {
  McpContext,
  McpInputRequest,
  McpInputRequiredResult,
  McpModule,
  McpRequestStateMode,
  McpTool,
  type McpOperationContext,
} from '../../../../src/index';
import { startTestServer, type TestServer } from '../../../utils/bootstrap';
import { textOf } from '../../../utils/session-clients';
import { askOnce, yesNoForm } from '../../../utils/input-asks';

/*
 * Every kind of ask on every 2025-era client: a form, a URL sign-in (replay-style, keyed by the
 * flow id), a sampled completion and the client's roots, each completed through the v1 SDK client
 * and the v2 client in its default mode over a 2025-11-25 session. A URL ask carries the
 * `elicitationId` 2025-11-25 requires, and the client hears `notifications/elicitation/complete`
 * once the sign-in is done.
 */

/** The sign-ins a browser finished, by flow id (what the app's OAuth callback route records). */
@Injectable()
class SignIns {
  readonly done = new Set<string>();
}

const CONNECT_URL = 'https://app.example.com/connect?flow=';

@Injectable()
class AskingTools {
  constructor(private readonly signIns: SignIns) {}

  @McpTool({
    name: 'confirm',
    description: 'Asks a yes/no question',
    mayRequestInput: [{ type: 'elicitation.form' }],
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  confirm(@McpContext() ctx: McpOperationContext): McpInputRequiredResult | string {
    const answer = ctx.inputResponses.find('ok');
    if (answer?.kind === 'elicitation') return `confirmed: ${answer.action}`;
    return askOnce('ok', yesNoForm('Go ahead?', 'yes'));
  }

  @McpTool({
    name: 'connect',
    description: 'Connects an account through a browser sign-in',
    mayRequestInput: [{ type: 'elicitation.url' }],
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  connect(@McpContext() ctx: McpOperationContext): McpInputRequiredResult | string {
    // Replay-style: the URL names the flow, the same in every round, so a retry asks the same one.
    if (this.signIns.done.has(ctx.flowId)) return 'connected';
    return askOnce(
      'signin',
      McpInputRequest.elicitUrl({ message: 'Sign in', url: `${CONNECT_URL}${ctx.flowId}` }),
      { waiting: true },
    );
  }

  @McpTool({
    name: 'summarize',
    description: "Asks the client's model",
    mayRequestInput: [{ type: 'sampling' }],
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  summarize(@McpContext() ctx: McpOperationContext): McpInputRequiredResult | string {
    const answer = ctx.inputResponses.find('summary');
    if (answer?.kind === 'sampling')
      return `model ${answer.model} said ${JSON.stringify(answer.content)}`;
    return askOnce(
      'summary',
      McpInputRequest.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'Summarize' } }],
        maxTokens: 10,
      }),
    );
  }

  @McpTool({
    name: 'workspace',
    description: "Reads the client's roots",
    mayRequestInput: [{ type: 'roots' }],
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  workspace(@McpContext() ctx: McpOperationContext): McpInputRequiredResult | string {
    const answer = ctx.inputResponses.find('roots');
    if (answer?.kind === 'roots') return answer.roots.map((root) => root.uri).join(',');
    return askOnce('roots', McpInputRequest.listRoots());
  }
}

@Module({
  imports: [McpModule.forRoot({ allowEphemeralKey: true })],
  providers: [SignIns, AskingTools],
})
class AsksApp {}

const CAPABILITIES = {
  elicitation: { form: {}, url: {} },
  sampling: {},
  roots: { listChanged: true },
};
const ROOTS = [{ uri: 'file:///work/project', name: 'project' }];
const SAMPLED = {
  role: 'assistant' as const,
  content: { type: 'text' as const, text: 'short' },
  model: 'tiny-1',
  stopReason: 'endTurn',
};

/** What the client saw of the URL asks: the request params, and the completions it heard. */
interface UrlAsks {
  readonly asked: Record<string, unknown>[];
  readonly completed: string[];
}

/** A client of either generation, answering every ask the way a user and its host would. */
interface AskingClient {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

async function v2DefaultMode(url: URL, signIns: SignIns, seen: UrlAsks): Promise<AskingClient> {
  const client = new Client({ name: 'asks-v2', version: '1.0.0' }, { capabilities: CAPABILITIES });
  client.setRequestHandler('elicitation/create', (request) => {
    const params = request.params as Record<string, unknown>;
    if (params.mode !== 'url') return { action: 'accept', content: { yes: true } };
    seen.asked.push(params);
    // The user's browser finishes the sign-in before the client says it is done.
    signIns.done.add(String(params.url).slice(CONNECT_URL.length));
    return { action: 'accept' };
  });
  client.setRequestHandler('sampling/createMessage', () => SAMPLED);
  client.setRequestHandler('roots/list', () => ({ roots: ROOTS }));
  client.setNotificationHandler('notifications/elicitation/complete', (notification) => {
    seen.completed.push(String((notification.params as { elicitationId: string }).elicitationId));
  });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

async function v1Sdk(url: URL, signIns: SignIns, seen: UrlAsks): Promise<AskingClient> {
  const client = new V1Client(
    { name: 'asks-v1', version: '1.0.0' },
    { capabilities: CAPABILITIES },
  );
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    const params = request.params as Record<string, unknown>;
    if (params.mode !== 'url') return { action: 'accept', content: { yes: true } };
    seen.asked.push(params);
    signIns.done.add(String(params.url).slice(CONNECT_URL.length));
    return { action: 'accept' };
  });
  client.setRequestHandler(CreateMessageRequestSchema, () => SAMPLED);
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: ROOTS }));
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => {
    seen.completed.push(notification.params.elicitationId);
  });
  await client.connect(new V1Transport(url));
  return client;
}

describe.each([
  ['the v1 SDK client', v1Sdk],
  ['the v2 client in its default mode', v2DefaultMode],
])('every ask on %s, in a 2025-11-25 session', (_client, connect) => {
  let server: TestServer;
  let client: AskingClient;
  const seen: UrlAsks = { asked: [], completed: [] };

  beforeAll(async () => {
    server = await startTestServer('express', { imports: [AsksApp] });
    client = await connect(server.url, server.app.get(SignIns), seen);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('completes a form ask', async () => {
    expect(textOf(await client.callTool({ name: 'confirm', arguments: {} }))).toBe(
      'confirmed: accept',
    );
  });

  it('completes a connect-style sign-in URL: the ask carries an elicitationId, and its completion is told', async () => {
    expect(textOf(await client.callTool({ name: 'connect', arguments: {} }))).toBe('connected');
    expect(seen.asked).toHaveLength(1);
    const { elicitationId, url, mode, message } = seen.asked[0] as Record<string, string>;
    expect({ mode, message }).toEqual({ mode: 'url', message: 'Sign in' });
    expect(url.startsWith(CONNECT_URL)).toBe(true);
    expect(elicitationId).toMatch(/^[0-9a-f-]{36}$/);
    // The notification comes on the call's stream before its answer.
    expect(seen.completed).toEqual([elicitationId]);
  });

  it('completes a sampled completion', async () => {
    expect(textOf(await client.callTool({ name: 'summarize', arguments: {} }))).toBe(
      'model tiny-1 said {"type":"text","text":"short"}',
    );
  });

  it("completes an ask for the client's roots", async () => {
    expect(textOf(await client.callTool({ name: 'workspace', arguments: {} }))).toBe(
      'file:///work/project',
    );
  });
});
