import type { Client } from '@modelcontextprotocol/client';
import request from 'supertest';
import {
  COMPLETER_SECRET,
  FILTER_ERROR,
  FRONTEND_ORIGIN,
  KMS_TOKEN_PREFIX,
  KmsAudit,
  LEAKY_MESSAGE,
  MAX_BODY_BYTES,
  PublishLog,
  ReportGate,
  REQUEST_ID_HEADER,
  RequestCounter,
  STATE_MARKER,
  startEnterpriseApp,
} from './enterprise-app';
import { CapturingLogger } from '../../fixtures/sample-app';
import { ADAPTERS, type TestServer } from '../../utils/bootstrap';
import { SseReader } from '../../utils/sse';
import { openListenStream } from '../../utils/listen-stream';
import { until } from '../../utils/wait';
import {
  connectClient,
  freshId,
  rawRound,
  rawToolCall,
  resultText,
  rpcBody,
  rpcHeaders,
  stateOf,
  type RawRoundResponse,
} from '../../utils/mcp';
import { INVALID_STATE, INTERNAL_ERROR } from '../../utils/expect-rpc';

/**
 * "A user's app is not our sample app": a realistic Nest app (passport-style global guard reading
 * the real HTTP request, `app.use()` middleware, CORS, module middleware, ClassSerializerInterceptor
 * plus a results-wrapping interceptor, a catch-all HTTP exception filter, no global ValidationPipe,
 * a KMS-style protector provided in the app module) must get the documented MCP behaviour.
 */

const FORM = { elicitation: {} };
const ALICE = { Authorization: 'Bearer alice' };
const BOB = { Authorization: 'Bearer bob' };
const CONFIRM = { confirm: { action: 'accept', content: { confirm: true } } };
const UNAUTHORIZED = -32001;
const FORBIDDEN = -32003;
const TOOLS = [
  'echo_post',
  'whoami',
  'usage_report',
  'exact_amount',
  'publish',
  'quota_exceeded',
  'leaky_query',
  'db_down',
  'add_note',
  'bill',
];

/** Every '.'-separated segment of a token, decoded as base64url, plus the token itself. */
function readableForms(token: string): string[] {
  return [
    token,
    ...token.split('.').map((segment) => Buffer.from(segment, 'base64url').toString('latin1')),
  ];
}

/** A `completion/complete` request for a prompt argument. */
function complete(
  server: TestServer,
  prompt: string,
  argument: string,
  value: string,
  headers: Record<string, string> = {},
): Promise<RawRoundResponse> {
  return rawRound(
    server.url,
    'completion/complete',
    { ref: { type: 'ref/prompt', name: prompt }, argument: { name: argument, value } },
    { headers },
  );
}

/** `tools/list` works and lists every tool of the app to alice, who may call them all. */
async function expectToolsListed(server: TestServer): Promise<void> {
  const response = await rawRound(server.url, 'tools/list', {}, { headers: ALICE });
  expect(response.status).toBe(200);
  const tools = (response.body.result?.tools ?? []) as { name: string }[];
  expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
}

describe.each(ADAPTERS)("a user's enterprise app over %s", (adapter) => {
  const logger = new CapturingLogger();
  let server: TestServer;
  const clients: Client[] = [];

  beforeAll(async () => {
    server = await startEnterpriseApp(adapter, 'http', logger);
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await server?.close();
  });

  /** A raw POST to the endpoint, with every response header visible. */
  const post = (method: string, params: Record<string, unknown>, headers = {}, name?: string) =>
    request(server.origin)
      .post('/mcp')
      .set({ ...rpcHeaders(method, name), ...headers })
      .send(rpcBody(method, params, freshId()));

  /** A round of `publish` as `headers`' caller: the first, or one confirming under `state`. */
  const publish = (args: { title: string }, headers: Record<string, string>, state?: string) =>
    rawToolCall(server.url, 'publish', args, {
      capabilities: FORM,
      headers,
      ...(state === undefined ? {} : { requestState: state, inputResponses: CONFIRM }),
    });

  /** The log lines written since `mark`, at `level`. */
  const logged = (mark: number, level: string) =>
    logger.lines.slice(mark).filter((line) => line.level === level);

  describe('1. middleware, CORS and body handling reach /mcp', () => {
    it('answers with the x-request-id the app.use() middleware set', async () => {
      const response = await post('tools/list', {});
      expect(response.status).toBe(200);
      expect(response.headers[REQUEST_ID_HEADER]).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('lets the allowed front-end origin read the answer and the request id', async () => {
      const response = await post('tools/list', {}, { Origin: FRONTEND_ORIGIN, ...ALICE });
      expect(response.status).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBe(FRONTEND_ORIGIN);
      expect(response.headers['access-control-expose-headers']).toContain(REQUEST_ID_HEADER);
      expect(response.body.result.tools).toHaveLength(TOOLS.length);
    });

    it('answers a CORS preflight for /mcp', async () => {
      const response = await request(server.origin).options('/mcp').set({
        Origin: FRONTEND_ORIGIN,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type,authorization,mcp-protocol-version',
      });
      expect([200, 204]).toContain(response.status);
      expect(response.headers['access-control-allow-origin']).toBe(FRONTEND_ORIGIN);
      expect(response.headers['access-control-allow-methods']).toContain('POST');
    });

    it('runs the module middleware once per MCP request', async () => {
      const counter = server.app.get(RequestCounter);
      const before = counter.count;
      await rawRound(server.url, 'tools/list', {});
      await rawToolCall(server.url, 'whoami', {}, { headers: ALICE });
      expect(counter.count).toBe(before + 2);
    });

    it('still hands the handler an answer of 3.50 exactly', async () => {
      const response = await rawToolCall(
        server.url,
        'exact_amount',
        {},
        {
          capabilities: FORM,
          inputResponses: { amount: { action: 'accept', content: { amount: '@amount' } } },
          rawTokens: { '"@amount"': '3.50' },
        },
      );
      expect(response.status).toBe(200);
      const { data } = JSON.parse(resultText(response)) as { data: { answer: string } };
      expect(data.answer).toBe('LosslessNumber 3.50');
    });

    // Only input responses are documented as exact (README: "an answer of 3.50 reaches you as
    // 3.50"); this is what the brief asked for arguments.
    // Tool arguments are plain JSON numbers (what DTO validation and inputSchema expect); exact
    // digits are kept for input-response answers, where money and codes travel.
    it('hands the handler a tool argument of 3.50 as the JSON number 3.5', async () => {
      const response = await rawToolCall(
        server.url,
        'exact_amount',
        { amount: '@amount' },
        {
          capabilities: FORM,
          inputResponses: { amount: { action: 'accept', content: { amount: 1 } } },
          rawTokens: { '"@amount"': '3.50' },
        },
      );
      const { data } = JSON.parse(resultText(response)) as { data: { argument: string } };
      expect(data.argument).toBe('number 3.5');
    });

    it('refuses a body over maxRequestBodyBytes with 413', async () => {
      const response = await post(
        'tools/call',
        { name: 'echo_post', arguments: { title: 'big', body: 'x'.repeat(MAX_BODY_BYTES) } },
        {},
        'echo_post',
      );
      expect(response.status).toBe(413);
      expect(response.body.error).toMatchObject({
        code: -32600,
        message: 'Request body too large',
      });
    });
  });

  describe('2. the guard sees the real HTTP request', () => {
    /** Who `whoami` says the caller is, sent with these headers. */
    const whoami = async (headers: Record<string, string>) =>
      resultText(await rawToolCall(server.url, 'whoami', {}, { headers }));

    it('accepts Authorization: Bearer alice (any scheme case) and sets req.user', async () => {
      expect(await whoami(ALICE)).toBe('{"data":"alice"}');
      expect(await whoami({ authorization: 'bearer bob' })).toBe('{"data":"bob"}');
    });

    it('accepts the user the session middleware found (cookie)', async () => {
      expect(await whoami({ Cookie: 'theme=dark; sid=bob' })).toBe('{"data":"bob"}');
    });

    it('refuses a call without credentials with -32001', async () => {
      const response = await rawToolCall(server.url, 'whoami', {});
      expect(response.body.error).toMatchObject({ code: UNAUTHORIZED });
    });

    it('is not fooled by an authorization header inside the arguments', async () => {
      const response = await rawToolCall(server.url, 'whoami', {
        headers: { authorization: 'Bearer alice' },
      });
      expect(response.body.error).toMatchObject({ code: UNAUTHORIZED });
      expect(response.text).not.toContain('"data":"alice"');
    });
  });

  describe('3. sealed state is bound to the passport user', () => {
    // Needs the default partition resolver to read req.user (the lead's pending change).
    it("refuses alice's state to bob; alice completes", async () => {
      const published = server.app.get(PublishLog);
      const args = { title: 'Q3 results' };
      const state = stateOf(await publish(args, ALICE));

      const asBob = await publish(args, BOB, state);
      expect(asBob.body.error).toEqual(INVALID_STATE);
      expect(published.completedBy).not.toContain('bob');

      const asAlice = await publish(args, ALICE, state);
      expect(resultText(asAlice)).toBe('{"data":"Published \\"Q3 results\\" for alice"}');
      expect(published.completedBy).toContain('alice');
    });
  });

  describe('4. user interceptors cannot change an input-required result', () => {
    it('answers round 1 with input_required and an opaque state', async () => {
      const response = await publish({ title: 'Launch' }, ALICE);
      expect(response.status).toBe(200);
      expect(response.body.result).toMatchObject({
        resultType: 'input_required',
        inputRequests: {
          confirm: { method: 'elicitation/create', params: { message: 'Publish "Launch"?' } },
        },
      });
      expect(response.body.result).not.toHaveProperty('data');
      for (const form of readableForms(stateOf(response))) expect(form).not.toContain(STATE_MARKER);
    });

    it('completes through the official client; the final result is wrapped like any other', async () => {
      const asked: string[] = [];
      const client = await connectClient(server.url, ALICE, {
        capabilities: { elicitation: { form: {} } },
        setup: (c) =>
          c.setRequestHandler('elicitation/create', (req) => {
            asked.push((req.params as { message: string }).message);
            return { action: 'accept', content: { confirm: true } };
          }),
      });
      clients.push(client);
      const result = await client.callTool({ name: 'publish', arguments: { title: 'Launch' } });
      expect(asked).toEqual(['Publish "Launch"?']);
      // A complete result is an ordinary result: the app's interceptors run on it, so the
      // wrapping interceptor's { data } arrives as JSON text.
      expect(result.content).toEqual([
        { type: 'text', text: '{"data":"Published \\"Launch\\" for alice"}' },
      ]);
    });

    it('serializes class results with ClassSerializerInterceptor', async () => {
      const response = await rawToolCall(server.url, 'echo_post', { title: 'Hi', body: 'there' });
      expect(JSON.parse(resultText(response))).toEqual({ data: { title: 'Hi', body: 'there' } });
    });
  });

  describe('5. a catch-all HTTP exception filter keeps the MCP error mapping', () => {
    it('turns McpToolError into an isError result with its message', async () => {
      const response = await rawToolCall(server.url, 'quota_exceeded', {});
      expect(response.body.result).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'Quota exceeded for project 7' }],
      });
    });

    it('answers a plain Error with a bare -32603 and logs it once with its stack', async () => {
      const mark = logger.lines.length;
      const response = await post('tools/call', { name: 'leaky_query' }, {}, 'leaky_query');
      expect(response.status).toBe(200);
      expect(response.body.error).toEqual(INTERNAL_ERROR);
      const wire = `${JSON.stringify(response.headers)}\n${response.text}`;
      for (const secret of ['password', 'hunter2', 'SELECT']) expect(wire).not.toContain(secret);
      const errors = logged(mark, 'error').filter((line) => line.text.includes(LEAKY_MESSAGE));
      expect(errors).toHaveLength(1);
      expect(errors[0].text).toMatch(/\n\s+at .+:\d+:\d+/);
    });

    it('answers InternalServerErrorException with -32603 and logs it at error level', async () => {
      const mark = logger.lines.length;
      const response = await rawToolCall(server.url, 'db_down', {});
      expect(response.body.error).toEqual(INTERNAL_ERROR);
      expect(response.text).not.toContain('db down');
      expect(logged(mark, 'error').some((line) => line.text.includes('db down'))).toBe(true);
    });
  });

  describe('6. DTO validation without a global ValidationPipe', () => {
    it('answers -32602 with the validation messages', async () => {
      const response = await rawToolCall(server.url, 'echo_post', { title: '', body: 5 });
      expect(response.body.error).toMatchObject({
        code: -32602,
        data: {
          errors: expect.arrayContaining(['title should not be empty', 'body must be a string']),
        },
      });
    });
  });

  describe('9. two DTO classes with the same name', () => {
    it('advertise their own schemas to the official client', async () => {
      const client = await connectClient(server.url, ALICE);
      clients.push(client);
      const { tools } = await client.listTools();
      const schemaOf = (name: string) => tools.find((tool) => tool.name === name)?.inputSchema;
      expect(schemaOf('add_note')).toMatchObject({ properties: { text: { type: 'string' } } });
      expect(schemaOf('add_note')?.properties).not.toHaveProperty('cents');
      expect(schemaOf('bill')).toMatchObject({ properties: { cents: { type: 'integer' } } });
      expect(schemaOf('bill')?.properties).not.toHaveProperty('text');
    });

    it('are validated each with its own rules', async () => {
      expect(resultText(await rawToolCall(server.url, 'add_note', { text: 'hi' }))).toBe(
        JSON.stringify({ data: 'note: hi' }),
      );
      expect(resultText(await rawToolCall(server.url, 'bill', { cents: 250 }))).toBe(
        JSON.stringify({ data: 'billed: 250' }),
      );
      const refused = await rawToolCall(server.url, 'bill', { text: 'hi' });
      expect(refused.body.error).toMatchObject({
        code: -32602,
        data: { errors: expect.arrayContaining(['cents must not be less than 1']) },
      });
    });
  });

  describe('7. the KMS-style protector provided in the app module', () => {
    it('seals and opens the state', async () => {
      const audit = server.app.get(KmsAudit);
      const { seals, opens } = audit;
      const args = { title: 'KMS' };
      const state = stateOf(await publish(args, ALICE));
      // The module's sealed-state header comes first, then the protector's own token.
      expect(state).toContain(`.${KMS_TOKEN_PREFIX}`);
      expect(audit.seals).toBe(seals + 1);
      const done = await publish(args, ALICE, state);
      expect(resultText(done)).toBe('{"data":"Published \\"KMS\\" for alice"}');
      expect(audit.opens).toBe(opens + 1);
    });

    it('does not warn about an EPHEMERAL key at startup', () => {
      expect(logger.lines.filter((line) => line.text.includes('EPHEMERAL'))).toEqual([]);
    });
  });

  describe('10. a task belongs to the user the passport guard found', () => {
    const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
    const createReport = (headers: Record<string, string>) =>
      rawToolCall(server.url, 'usage_report', {}, { capabilities: TASKS, headers });
    const taskCall = (method: string, taskId: string, headers: Record<string, string>) =>
      rawRound(server.url, method, { taskId }, { capabilities: TASKS, headers });

    function finished(taskId: string): Promise<Record<string, unknown>> {
      return until(async () => (await taskCall('tasks/get', taskId, ALICE)).body.result ?? {}, {
        done: (result) => result.status === 'completed',
        what: `task ${taskId} to complete`,
      });
    }

    it('runs the guard before the task exists: no credentials, no task', async () => {
      const anonymous = await createReport({});
      expect(anonymous.body.error).toMatchObject({ code: -32001 });
      expect(anonymous.body.result).toBeUndefined();
    });

    it('lets alice follow her task on a listen stream; bob hears nothing of it, anonymous callers are refused', async () => {
      // The report completes only once both streams listen, however slow opening them is.
      const gate = server.app.get(ReportGate);
      gate.hold();
      const taskId = (await createReport(ALICE)).body.result?.taskId as string;
      const listen = (headers: Record<string, string>) =>
        openListenStream(server.url, { taskIds: [taskId] }, { headers, capabilities: TASKS });
      const anonymous = await listen({});
      const refusal = await new Response(anonymous.body).text();
      expect(JSON.parse(refusal)).toMatchObject({ error: { code: -32001 } });

      const bobs = await listen(BOB);
      const alices = await listen(ALICE);
      try {
        const bobFrames = new SseReader(bobs.body);
        const aliceFrames = new SseReader(alices.body);
        expect((await bobFrames.next()).method).toBe('notifications/subscriptions/acknowledged');
        expect((await aliceFrames.next()).method).toBe('notifications/subscriptions/acknowledged');
        gate.release();
        expect(await aliceFrames.next()).toMatchObject({
          method: 'notifications/tasks',
          params: { taskId, status: 'completed' },
        });
        // The task is done; bob's stream, following the same id, got only its acknowledgement.
        bobs.close();
        await expect(bobFrames.next()).rejects.toThrow();
      } finally {
        gate.release();
        bobs.close();
        alices.close();
      }
    });

    it('lets alice read her task, and gives bob and anonymous callers nothing of it', async () => {
      const created = await createReport(ALICE);
      expect(created.body.result).toMatchObject({ resultType: 'task', status: 'working' });
      const taskId = created.body.result?.taskId as string;

      const done = await finished(taskId);
      // The app's own result-wrapping interceptor applies, as for a call that is not a task.
      expect(done.result).toMatchObject({
        content: [{ type: 'text', text: '{"data":"usage report for alice"}' }],
      });
      for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
        const bob = await rawRound(
          server.url,
          method,
          method === 'tasks/update' ? { taskId, inputResponses: {} } : { taskId },
          { capabilities: TASKS, headers: BOB },
        );
        expect(bob.body.error).toEqual({ code: -32602, message: 'Unknown task' });
        const anonymous = await taskCall(method, taskId, {});
        expect(anonymous.body.error).toMatchObject({ code: -32001 });
      }
      // Still hers, untouched.
      expect((await taskCall('tasks/get', taskId, ALICE)).body.result).toMatchObject({
        status: 'completed',
      });
    });
  });

  describe('8. completion runs through the pipeline of its prompt', () => {
    // The completer runs under the app's interceptors; the wrapping one must not turn its values
    // into { data: [...] } (today that answers -32603 for every successful completion).
    it('refuses completion of the roles-guarded prompt without credentials', async () => {
      const response = await complete(server, 'admin_report', 'team', 'i');
      expect(response.body.error).toMatchObject({ code: UNAUTHORIZED });
    });

    it('refuses it to a user without the role', async () => {
      const response = await complete(server, 'admin_report', 'team', 'i', BOB);
      expect(response.body.error).toMatchObject({ code: FORBIDDEN });
    });

    it('completes it for a user with the role', async () => {
      const response = await complete(server, 'admin_report', 'team', 'i', ALICE);
      expect(response.body.result).toMatchObject({ completion: { values: ['infra'] } });
    });

    it('completes a public prompt without credentials', async () => {
      const response = await complete(server, 'draft_reply', 'tone', 'f');
      expect(response.body.result).toMatchObject({
        completion: { values: ['formal', 'friendly', 'firm'] },
      });
    });

    it('answers a throwing completer with a bare -32603', async () => {
      const mark = logger.lines.length;
      const response = await complete(server, 'draft_reply', 'topic', 'x');
      expect(response.body.error).toEqual(INTERNAL_ERROR);
      expect(response.text).not.toContain(COMPLETER_SECRET);
      expect(logged(mark, 'error').some((line) => line.text.includes(COMPLETER_SECRET))).toBe(true);
    });
  });

  it('still answers tools/list', () => expectToolsListed(server));

  describe('with an MCP-aware exception filter instead', () => {
    let aware: TestServer;

    beforeAll(async () => {
      aware = await startEnterpriseApp(adapter, 'mcp-aware', new CapturingLogger());
    });

    afterAll(() => aware?.close());

    it('lets the filter answer a failing tool', async () => {
      const response = await rawToolCall(aware.url, 'leaky_query', {});
      expect(response.body.error).toEqual(FILTER_ERROR);
      expect(response.text).not.toContain('hunter2');
    });

    it('lets the filter answer a guard refusal', async () => {
      const response = await rawToolCall(aware.url, 'whoami', {});
      expect(response.body.error).toEqual(FILTER_ERROR);
    });

    it('still answers tools/list', () => expectToolsListed(aware));
  });
});
