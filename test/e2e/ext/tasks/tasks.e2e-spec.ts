import { Injectable, Module } from '@nestjs/common';
import {
  InvalidOperationDefinitionError,
  McpModule,
  McpTool,
  type McpToolOptions,
} from '../../../../src/index';
import { MemoryTaskStore } from '../../../../src/entry/tasks';
import { TASK_METHODS, TaskProbe, tasksApp } from './tasks.fixtures';
import { ADAPTERS, startTestServer, startupError, type TestServer } from '../../../utils/bootstrap';
import { freshId, rawRound, type RawRoundOptions, type RawRoundResponse } from '../../../utils/mcp';
import { SseReader } from '../../../utils/sse';
import { openListenStream } from '../../../utils/listen-stream';
import { sleep, until } from '../../../utils/wait';

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: { form: {} } };
type Body = Record<string, unknown>;

describe.each(ADAPTERS)('tasks extension over %s', (adapter) => {
  let server: TestServer;
  let probe: TaskProbe;

  beforeAll(async () => {
    server = await startTestServer(adapter, { imports: [tasksApp()] });
    probe = server.app.get(TaskProbe);
  });

  afterAll(() => server?.close());

  function send(
    method: string,
    params: Body,
    user = 'alice',
    options: RawRoundOptions = {},
  ): Promise<RawRoundResponse> {
    return rawRound(server.url, method, params, {
      capabilities: TASKS,
      ...options,
      headers: { 'x-user': user, ...options.headers },
    });
  }

  async function result(method: string, params: Body, user = 'alice'): Promise<Body> {
    const response = await send(method, params, user);
    if (response.body.error) throw new Error(JSON.stringify(response.body.error));
    return response.body.result as Body;
  }

  const call = (name: string, args: Body = {}, user?: string) =>
    result('tools/call', { name, arguments: args }, user);
  const get = (taskId: string, user?: string) => result('tasks/get', { taskId }, user);

  const settled = (taskId: string, done: (task: Body) => boolean): Promise<Body> =>
    until(() => get(taskId), { done, what: `task ${taskId} to settle` });

  it('advertises the extension under capabilities.extensions only', async () => {
    const discovered = await result('server/discover', {});
    const capabilities = discovered.capabilities as Body;
    expect(capabilities.extensions).toEqual({ 'io.modelcontextprotocol/tasks': {} });
    expect(capabilities).not.toHaveProperty('tasks');
  });

  it('creates a flat task that exists as soon as the client learns its id', async () => {
    const created = await call('progress_job');
    expect(Object.keys(created).sort()).toEqual(
      [
        'resultType',
        'taskId',
        'status',
        'createdAt',
        'lastUpdatedAt',
        'ttlMs',
        'pollIntervalMs',
        '_meta',
      ].sort(),
    );
    expect(created).toMatchObject({ resultType: 'task', status: 'working', pollIntervalMs: 50 });
    expect(created.ttlMs).toBe(3_600_000);
    expect(created.taskId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const taskId = created.taskId as string;
    const working = await settled(taskId, (task) => task.statusMessage !== undefined);
    expect(working).toMatchObject({ resultType: 'complete', taskId, status: 'working' });
    expect(working.statusMessage).toBe('loaded 1 of 4 files');
    probe.release?.();
    const completed = await settled(taskId, (task) => task.status === 'completed');
    expect(completed.result).toEqual({
      resultType: 'complete',
      content: [{ type: 'text', text: 'all files loaded' }],
    });
    expect(completed).not.toHaveProperty('statusMessage');
  });

  it('runs a task-optional tool synchronously for a client without the extension', async () => {
    const response = await send('tools/call', { name: 'short_lived', arguments: {} }, 'alice', {
      capabilities: {},
    });
    expect(response.body.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'done' }],
    });
  });

  it('refuses a task-only tool and tasks/* to a client without the extension (-32021)', async () => {
    for (const [method, params] of [
      ['tools/call', { name: 'wait_for_cancel', arguments: {} }],
      ['tasks/get', { taskId: 'x' }],
      ['tasks/update', { taskId: 'x', inputResponses: {} }],
      ['tasks/cancel', { taskId: 'x' }],
    ] as const) {
      const response = await send(method, params, 'alice', { capabilities: { elicitation: {} } });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
      });
    }
  });

  it('parks for input, takes answers key by key through tasks/update, and resumes from its sealed state', async () => {
    const before = { runs: probe.runs, first: probe.firstPhaseRuns };
    const { taskId } = (await call('approve_payment', { amount: '12.50' })) as { taskId: string };
    const parked = await settled(taskId, (task) => task.status === 'input_required');
    expect(Object.keys(parked.inputRequests as Body).sort()).toEqual(['approve', 'note']);
    expect(parked).not.toHaveProperty('requestState');

    // Unknown keys are ignored; a malformed answer to an outstanding key changes nothing.
    expect(await result('tasks/update', { taskId, inputResponses: { other: { x: 1 } } })).toEqual(
      expect.objectContaining({ resultType: 'complete' }),
    );
    const malformed = await send('tasks/update', {
      taskId,
      inputResponses: { approve: 12345 },
    });
    expect(malformed.body.error).toMatchObject({ code: -32602 });
    expect(Object.keys((await get(taskId)).inputRequests as Body).sort()).toEqual([
      'approve',
      'note',
    ]);

    const ack = await result('tasks/update', {
      taskId,
      inputResponses: { approve: { action: 'accept', content: { ok: true } } },
    });
    expect(Object.keys(ack)).toEqual(expect.not.arrayContaining(['taskId', 'status']));
    const partial = await get(taskId);
    expect(partial.status).toBe('input_required');
    expect(Object.keys(partial.inputRequests as Body)).toEqual(['note']);

    // The answered key stays answered: sending it again with another value is ignored.
    await result('tasks/update', {
      taskId,
      inputResponses: {
        approve: { action: 'accept', content: { ok: false } },
        note: { action: 'accept', content: { text: 'thanks' } },
      },
    });
    const completed = await settled(taskId, (task) => task.status === 'completed');
    const text = (completed.result as { content: { text: string }[] }).content[0].text;
    expect(text).toMatch(/^Paid 12\.50 \(ref-[0-9a-f]{6}\) with note "thanks"$/);
    expect(completed).not.toHaveProperty('requestState');
    expect(probe.firstPhaseRuns - before.first).toBe(1);
    expect(probe.runs - before.runs).toBe(2);
  });

  it('hands the task its answers with their numbers as the client wrote them (3.50 stays 3.50)', async () => {
    const { taskId } = (await call('tip_as_written')) as { taskId: string };
    await settled(taskId, (task) => task.status === 'input_required');
    const response = await send(
      'tasks/update',
      {
        taskId,
        inputResponses: { tip: { action: 'accept', content: { amount: 'A', count: 'C' } } },
      },
      'alice',
      { rawTokens: { '"A"': '3.50', '"C"': '12345678901234567891' } },
    );
    expect(response.body.result).toMatchObject({ resultType: 'complete' });
    const completed = await settled(taskId, (task) => task.status === 'completed');
    expect((completed.result as { content: { text: string }[] }).content[0].text).toBe(
      'tip 3.50 x12345678901234567891',
    );
  });

  it('ignores a "__proto__" answer key, which changes neither the task nor any prototype', async () => {
    const { taskId } = (await call('approve_payment', { amount: '2.00' })) as { taskId: string };
    await settled(taskId, (task) => task.status === 'input_required');
    const response = await send(
      'tasks/update',
      {
        taskId,
        inputResponses: {
          PROTO_KEY: { action: 'accept', content: { polluted: true } },
          approve: { action: 'accept', content: { ok: true } },
        },
      },
      'alice',
      { rawTokens: { PROTO_KEY: '__proto__' } },
    );
    expect(response.body.result).toMatchObject({ resultType: 'complete' });
    const task = await get(taskId);
    expect(Object.keys(task.inputRequests as Body)).toEqual(['note']);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { content?: unknown }).content).toBeUndefined();
  });

  it('cancels a running task: the ack is empty, the handler sees its signal abort, and repeats are acknowledged', async () => {
    const { taskId } = (await call('wait_for_cancel')) as { taskId: string };
    await get(taskId);
    expect(await result('tasks/cancel', { taskId })).toEqual({
      resultType: 'complete',
      _meta: expect.any(Object),
    });
    expect((await get(taskId)).status).toBe('cancelled');
    await until(() => probe.aborted.includes(taskId), 'the handler to see its signal abort');
    expect(probe.aborted).toContain(taskId);
    expect((await result('tasks/cancel', { taskId })).resultType).toBe('complete');
    expect((await get(taskId)).status).toBe('cancelled');
  });

  it('gathers input in normal rounds before a deferred task exists', async () => {
    const round1 = await call('greet_later');
    expect(round1.resultType).toBe('input_required');
    expect(round1).not.toHaveProperty('taskId');
    const round2 = await send('tools/call', { name: 'greet_later', arguments: {} }, 'alice', {
      inputResponses: { who: { action: 'accept', content: { name: 'Alice' } } },
    });
    const created = round2.body.result as Body;
    expect(created.resultType).toBe('task');
    expect(created).not.toHaveProperty('requestState');
    const taskId = created.taskId as string;
    // After start(), progress is the task's, no longer the (answered) request's.
    await settled(taskId, (task) => task.statusMessage === 'greeting prepared');
    probe.releaseGreeting?.();
    const completed = await settled(taskId, (task) => task.status === 'completed');
    expect(completed.result).toEqual({
      resultType: 'complete',
      content: [{ type: 'text', text: `Hello, Alice (task ${taskId})` }],
    });
  });

  it("answers every tasks/* method for another caller's task exactly as for an unknown one", async () => {
    const { taskId } = (await call('approve_payment', { amount: '1.00' })) as { taskId: string };
    await settled(taskId, (task) => task.status === 'input_required');
    for (const [method, params] of TASK_METHODS) {
      const foreign = await send(method, { taskId, ...params }, 'mallory');
      const unknown = await send(
        method,
        { taskId: 'AAAAAAAAAAAAAAAAAAAAAA', ...params },
        'mallory',
      );
      expect(foreign.status).toBe(unknown.status);
      expect(foreign.body.error).toEqual({ code: -32602, message: 'Unknown task' });
      expect(unknown.body.error).toEqual(foreign.body.error);
    }
    const untouched = await get(taskId);
    expect(untouched.status).toBe('input_required');
    expect(Object.keys(untouched.inputRequests as Body).sort()).toEqual(['approve', 'note']);
  });

  it('requires Mcp-Name to name the task (-32020, HTTP 400)', async () => {
    const { taskId } = (await call('short_lived')) as { taskId: string };
    const response = await send('tasks/get', { taskId }, 'alice', {
      headers: { 'Mcp-Name': 'another-task' },
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: -32020 });
  });

  // Issue #17 (item 4): answers on the creating call skipped the bound, leaving a task that no
  // tasks/update could ever answer.
  it('refuses answers over tasks.maxInputResponseBytes on the creating call, creating no task', async () => {
    const runs = probe.runs;
    const response = await send('tools/call', {
      name: 'approve_payment',
      arguments: { amount: '1.00' },
      inputResponses: { note: { action: 'accept', content: { text: 'x'.repeat(300_000) } } },
    });
    expect(response.body.error).toEqual({
      code: -32602,
      message: 'Invalid params: input responses too large',
      data: { maxBytes: 262_144 },
    });
    expect(response.body.result).toBeUndefined();
    expect(probe.runs).toBe(runs);
  });

  // Issue #17 (item 10): the SDK's check echoed a 1 MB task id twice (a 2 MB answer).
  it('answers an Mcp-Name that disagrees with a 1 MB task id with both clipped', async () => {
    const response = await send('tasks/get', { taskId: 't'.repeat(1_000_000) }, 'alice', {
      headers: { 'Mcp-Name': 'another-task' },
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({
      code: -32020,
      data: { mismatch: { header: 'another-task', body: expect.any(String) } },
    });
    const { mismatch } = (response.body.error?.data ?? {}) as { mismatch: { body: string } };
    // The SDK's wording, with the id clipped to 128 characters.
    expect(mismatch.body).toContain(`params.taskId="${'t'.repeat(128)}…"`);
    expect(mismatch.body).not.toContain('t'.repeat(129));
    expect(response.text.length).toBeLessThan(2_000);
  });

  it('sends each status change of a followed task of the caller as notifications/tasks on subscriptions/listen', async () => {
    const { taskId } = (await call('approve_payment', { amount: '5.00' })) as { taskId: string };
    const { taskId: othersTask } = (await call('approve_payment', { amount: '6.00' }, 'bob')) as {
      taskId: string;
    };
    await settled(taskId, (task) => task.status === 'input_required');
    const id = freshId();
    const stream = await openListenStream(
      server.url,
      { taskIds: [taskId, othersTask] },
      { id, headers: { 'x-user': 'alice' }, capabilities: TASKS },
    );
    try {
      expect(stream.status).toBe(200);
      const frames = new SseReader(stream.body);
      const ack = await frames.next();
      expect(ack).toMatchObject({
        method: 'notifications/subscriptions/acknowledged',
        params: {
          _meta: { 'io.modelcontextprotocol/subscriptionId': id },
          notifications: { taskIds: [taskId, othersTask] },
        },
      });
      await result('tasks/update', {
        taskId,
        inputResponses: {
          approve: { action: 'accept', content: { ok: true } },
          note: { action: 'decline' },
        },
      });
      await result('tasks/cancel', { taskId: othersTask }, 'bob');
      const seen: unknown[] = [];
      for (let frame = await frames.next(); ; frame = await frames.next()) {
        const params = frame.params as Body;
        expect(frame.method).toBe('notifications/tasks');
        expect(params.taskId).toBe(taskId);
        expect(params._meta).toEqual({ 'io.modelcontextprotocol/subscriptionId': id });
        seen.push(params.status);
        if (params.status === 'completed') {
          expect(params.result).toMatchObject({ resultType: 'complete' });
          break;
        }
      }
      // Bob's task changed too, but it is not Alice's to follow.
      expect(seen).toEqual(['working', 'completed']);
    } finally {
      stream.close();
    }
  });

  it('refuses to follow malformed or too many task ids, or without the extension', async () => {
    for (const [taskIds, capabilities, code] of [
      ['not-a-list', TASKS, -32602],
      [Array.from({ length: 101 }, (_, index) => `t${index}`), TASKS, -32602],
      [['x'.repeat(129)], TASKS, -32602],
      [['a-task'], { elicitation: {} }, -32021],
    ] as const) {
      const response = await openListenStream(server.url, { taskIds }, { capabilities });
      const text = await new Response(response.body).text();
      expect(response.status).toBe(400);
      expect(JSON.parse(text).error.code).toBe(code);
    }
  });

  it('answers tasks/result and tasks/list with -32601', async () => {
    for (const method of ['tasks/result', 'tasks/list']) {
      const response = await send(method, method === 'tasks/list' ? {} : { taskId: 'x' });
      expect(response.body.error).toMatchObject({ code: -32601 });
    }
  });

  it('drops a task once its ttlMs has passed', async () => {
    const created = await call('short_lived');
    expect(created.ttlMs).toBe(300);
    const taskId = created.taskId as string;
    expect((await settled(taskId, (task) => task.status === 'completed')).taskId).toBe(taskId);
    await sleep(350);
    const gone = await send('tasks/get', { taskId });
    expect(gone.body.error).toEqual({ code: -32602, message: 'Unknown task' });
  });

  it('fails a task whose result is over tasks.maxResultBytes instead of keeping it', async () => {
    const { taskId } = (await call('large_result')) as { taskId: string };
    const failed = await settled(taskId, (task) => task.status === 'failed');
    expect(failed.error).toEqual({ code: -32603, message: 'Task result too large' });
    expect(failed).not.toHaveProperty('result');
  });
});

describe('task options checked at startup', () => {
  function appWith(options: McpToolOptions) {
    @Injectable()
    class Tools {
      @McpTool(options)
      tool() {
        return 'ok';
      }
    }
    @Module({
      imports: [McpModule.forRoot({ tasks: { maxTtlMs: 60_000 } })],
      providers: [Tools],
    })
    class App {}
    return App;
  }

  it.each([
    [
      { taskSupport: 'optional', taskTtlMs: 60_001 },
      /taskTtlMs must be .* at most tasks.maxTtlMs \(60000\)/,
    ],
    [{ taskSupport: 'sometimes' }, /unknown taskSupport "sometimes"/],
    [{ taskSupport: 'optional', taskCreation: 'later' }, /unknown taskCreation "later"/],
    [
      { taskCreation: 'deferred' },
      /taskCreation and taskTtlMs need taskSupport "optional" or "required"/,
    ],
  ] as const)('refuses %j', async (options, message) => {
    const error = await startupError('express', {
      imports: [appWith({ description: 'A tool', ...(options as Partial<McpToolOptions>) })],
    });
    expect(error).toBeInstanceOf(InvalidOperationDefinitionError);
    expect(error?.message).toMatch(message);
  });
});

describe('tasks per caller', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer('fastify', {
      imports: [tasksApp({ tasks: { maxTasksPerCaller: 2 } })],
    });
  });

  afterAll(() => server?.close());

  const create = (user: string) =>
    rawRound(
      server.url,
      'tools/call',
      { name: 'wait_for_cancel', arguments: {} },
      { capabilities: TASKS, headers: { 'x-user': user } },
    );
  const cancel = (user: string, taskId: string) =>
    rawRound(
      server.url,
      'tasks/cancel',
      { taskId },
      { capabilities: TASKS, headers: { 'x-user': user } },
    );

  it('gives one caller at most tasks.maxTasksPerCaller unexpired tasks; others keep theirs', async () => {
    const mine = [await create('alice'), await create('alice')].map(
      (response) => (response.body.result as { taskId: string }).taskId,
    );
    const third = await create('alice');
    expect(third.status).toBe(200);
    expect(third.body.error).toEqual({
      code: -32000,
      message: 'Server busy: too many tasks for this caller',
      data: { maxTasksPerCaller: 2, retryAfterMs: expect.any(Number) },
    });
    const bobs = await create('bob');
    expect((bobs.body.result as Body).resultType).toBe('task');
    await Promise.all([
      ...mine.map((taskId) => cancel('alice', taskId)),
      cancel('bob', (bobs.body.result as { taskId: string }).taskId),
    ]);
  });
});

describe('a full task store', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer('express', {
      imports: [tasksApp({ tasks: { store: new MemoryTaskStore({ maxTasks: 1 }) } })],
    });
  });

  afterAll(() => server?.close());

  it('answers a task-creating call with -32000 Server busy, creating nothing', async () => {
    const create = () =>
      rawRound(
        server.url,
        'tools/call',
        { name: 'wait_for_cancel', arguments: {} },
        { capabilities: TASKS, headers: { 'x-user': 'alice' } },
      );
    const first = await create();
    expect((first.body.result as Body).resultType).toBe('task');
    const second = await create();
    expect(second.status).toBe(200);
    expect(second.body.error).toEqual({
      code: -32000,
      message: 'Server busy: too many tasks',
      data: { maxTasks: 1, retryAfterMs: expect.any(Number) },
    });
    const taskId = (first.body.result as { taskId: string }).taskId;
    await rawRound(
      server.url,
      'tasks/cancel',
      { taskId },
      {
        capabilities: TASKS,
        headers: { 'x-user': 'alice' },
      },
    );
  });
});
