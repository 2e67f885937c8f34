import { execFileSync } from 'node:child_process';
import Redis from 'ioredis';
import { McpModule, type McpModuleOptions } from '../../../src/index';
import { BullMqTaskRunner, RedisTaskStore } from '../../../src/entry/redis';
import { FleetProbe, fleetTasksApp } from '../ext/tasks/fleet-tasks.fixtures';
import { HandlerRuns } from '../../fixtures/handler-runs';
import { CapturingLogger, newKeyring } from '../../fixtures/sample-app';
import {
  HEADER_PARTITIONS,
  StateHandleFixturesModule,
} from '../request-state/state-handles.fixtures';
import { TASK_METHODS, TaskProbe, tasksApp } from '../ext/tasks/tasks.fixtures';
import { ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import { rawRound, rawToolCall, type RawRoundResponse } from '../../utils/mcp';
import {
  closeRedisClient,
  startRedisServer,
  type RedisServerHandle,
} from '../../utils/redis-server';
import { until } from '../../utils/wait';

// Issue #17 (items 5 and 7): whoever can write to Redis is not whoever may act as a caller. Records
// and queued steps carry the keyring's tag; an edited one — by `redis-cli`, as an attacker with
// Redis write access would — is treated as missing and logged with its key; control messages
// without a tag are ignored; a step Redis refuses to queue answers the retryable -32000 and gives its
// caller's slot back.

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: { form: {} } };
const FORM = { elicitation: { form: {} } };

let redis: RedisServerHandle;
let client: Redis;
const keyring = newKeyring(['k1']);
const shared = () => ({ keyring: { active: keyring.active, keys: { ...keyring.keys } } });

/** One command through `redis-cli`, as an operator or an attacker would type it. */
function redisCli(...args: string[]): string {
  return execFileSync('redis-cli', ['-p', String(redis.port), ...args], {
    encoding: 'utf8',
  }).trim();
}

/** A task record's JSON as the Redis store keeps it (the parts these tests edit). */
interface StoredTask {
  partition: string;
  call: { params: { arguments: Record<string, unknown> } };
}

/** What `logger` wrote after `mark`, one string. */
const loggedSince = (logger: CapturingLogger, mark: number): string =>
  logger.lines
    .slice(mark)
    .map((line) => line.text)
    .join('\n');

/** The key material and tags an integrity log line must never show. */
function expectNoSecrets(logged: string, ...secrets: string[]): void {
  for (const key of Object.values(keyring.keys)) expect(logged).not.toContain(key);
  for (const secret of secrets) expect(logged).not.toContain(secret);
}

/**
 * What `logger` logged since `mark` names the `kind` record at `key` as failing its integrity
 * check, and shows no key material, nor its `tag`, nor `secret` (a value of the record).
 */
function expectIntegrityFailureLogged(
  logger: CapturingLogger,
  mark: number,
  kind: string,
  key: string,
  tag: string,
  secret: string,
): void {
  const logged = loggedSince(logger, mark);
  expect(logged).toContain(
    `A ${kind} record failed its integrity check and is treated as missing: ${key}`,
  );
  expectNoSecrets(logged, tag, secret);
}

beforeAll(async () => {
  redis = await startRedisServer();
  client = new Redis(redis.port, '127.0.0.1', { maxRetriesPerRequest: 1 });
});

afterAll(async () => {
  if (client) await closeRedisClient(client);
  await redis?.close();
});

describe.each(ADAPTERS)('records edited in Redis, over %s', (adapter) => {
  const logger = new CapturingLogger();
  let server: TestServer;
  const prefix = `edited-${adapter}:`;
  const as = (user: string) => (method: string, params: Record<string, unknown>) =>
    rawRound(server.url, method, params, { capabilities: TASKS, headers: { 'x-user': user } });

  beforeAll(async () => {
    server = await startTestServer(
      adapter,
      {
        imports: [
          tasksApp({ ...shared(), redis: { url: redis.url, keyPrefix: prefix } }),
          McpModule.forRoot({
            ...shared(),
            endpoint: '/h',
            redis: { url: redis.url, keyPrefix: prefix },
            identity: { partitionResolver: HEADER_PARTITIONS },
          }),
          StateHandleFixturesModule,
        ],
      },
      '/mcp',
      { logger },
    );
  });
  afterAll(() => server?.close());

  /** Creates alice's payment task and waits until it asks its questions. */
  async function parkedPayment(amount: string): Promise<string> {
    const created = await as('alice')('tools/call', {
      name: 'approve_payment',
      arguments: { amount },
    });
    const taskId = (created.body.result as { taskId: string }).taskId;
    await until(
      async () =>
        ((await as('alice')('tasks/get', { taskId })).body.result as { status?: string }).status,
      { done: (status) => status === 'input_required', what: 'the task to ask' },
    );
    return taskId;
  }

  /** Rewrites the JSON of a task record in place, leaving its tag as it was; answers key and tag. */
  function editTask(taskId: string, edit: (task: StoredTask) => void): [string, string] {
    const key = `${prefix}task:${taskId}`;
    const task = JSON.parse(redisCli('HGET', key, 'd')) as StoredTask;
    edit(task);
    expect(redisCli('HSET', key, 'd', JSON.stringify(task))).toBe('0');
    return [key, redisCli('HGET', key, 't')];
  }

  it('serves no one a task whose partition was edited to another caller, and logs its key', async () => {
    const taskId = await parkedPayment('7');
    const mark = logger.lines.length;
    const [key, tag] = editTask(taskId, (task) => (task.partition = 'bob'));
    for (const [method, params] of TASK_METHODS) {
      const unknown = await as('bob')(method, { ...params, taskId: 'no-such-task' });
      const asBob = await as('bob')(method, { ...params, taskId });
      expect(asBob.body.error).toEqual({ code: -32602, message: 'Unknown task' });
      expect(asBob.body.error).toEqual(unknown.body.error);
      expect(asBob.text).not.toContain('Pay 7');
    }
    const asAlice = await as('alice')('tasks/get', { taskId });
    expect(asAlice.body.error).toEqual({ code: -32602, message: 'Unknown task' });
    expectIntegrityFailureLogged(logger, mark, 'task', key, tag, 'Pay 7');
  });

  it('never resumes a parked task whose arguments were edited', async () => {
    const taskId = await parkedPayment('7');
    const probe = server.app.get(TaskProbe);
    const runs = probe.runs;
    const mark = logger.lines.length;
    const [key, tag] = editTask(taskId, (task) => (task.call.params.arguments.amount = '7000000'));
    const update = await as('alice')('tasks/update', {
      taskId,
      inputResponses: {
        approve: { action: 'accept', content: { ok: true } },
        note: { action: 'accept', content: { text: 'hi' } },
      },
    });
    expect(update.body.error).toEqual({ code: -32602, message: 'Unknown task' });
    expect(probe.runs).toBe(runs);
    expectIntegrityFailureLogged(logger, mark, 'task', key, tag, '7000000');
  });

  it('ignores task events published without the keyring, logging the channel once per bus', async () => {
    const taskId = await parkedPayment('9');
    const channel = `${prefix}fleet`;
    const mark = logger.lines.length;
    // The bus's own format, untagged and with a forged tag: a version far ahead of the task's.
    const json = JSON.stringify({ channel: 'tasks', event: { taskId, version: 999 } });
    for (let flood = 0; flood < 20; flood++) redisCli('PUBLISH', channel, `forger ${json}`);
    redisCli('PUBLISH', channel, `forger azE.${'A'.repeat(43)} ${json}`);
    const ignored = () =>
      logger.lines
        .slice(mark)
        .filter((line) => line.text.includes(`A message on ${channel} is not one of the fleet's`));
    // Once for the 21 messages by each bus that hears them: this server has two modules on the
    // prefix (the tasks app and the /h endpoint).
    await until(() => ignored().length >= 2, 'both buses to log');
    expect(ignored()).toHaveLength(2);
    // The task is as it was.
    const task = (await as('alice')('tasks/get', { taskId })).body.result as { status: string };
    expect(task.status).toBe('input_required');
  });

  it('treats an edited state-handle record as missing: data or binding changed, nothing is redeemed', async () => {
    const url = new URL('/h', server.url);
    const first = async () => {
      const round = await rawToolCall(
        url,
        'handle_approve',
        { amount: '12.00' },
        {
          capabilities: FORM,
          headers: { 'X-User': 'alice' },
        },
      );
      return round.body.result?.requestState as string;
    };
    const retry = (user: string, handle: string) =>
      rawToolCall(
        url,
        'handle_approve',
        { amount: '12.00' },
        {
          capabilities: FORM,
          headers: { 'X-User': user },
          requestState: handle,
          inputResponses: { approval: { action: 'accept', content: { approve: true } } },
        },
      );
    // On the wire a handle follows the flow's tagged prefix; Redis keeps the bare handle.
    const bare = (wire: string) => wire.slice(wire.lastIndexOf('.') + 1);
    const runs = server.app.get(HandlerRuns);
    const approved = runs.count('handle_approve:approved');
    // The amount that waits under the handle, raised.
    const raised = await first();
    const raisedTag = redisCli('HGET', `${prefix}handle:${bare(raised)}`, 't');
    redisCli('HSET', `${prefix}handle:${bare(raised)}`, 'd', '{"amount":"12000.00","note":""}');
    const mark = logger.lines.length;
    expect((await retry('alice', raised)).body.error).toEqual({
      code: -32602,
      message: 'Invalid request state',
    });
    // The key names a record already moved to its next round's handle (and that one deleted): a
    // handle in the log can no longer be redeemed.
    expectIntegrityFailureLogged(
      logger,
      mark,
      'state handle',
      `${prefix}handle:${bare(raised)}`,
      raisedTag,
      '12000.00',
    );
    expect(redisCli('EXISTS', `${prefix}handle:${bare(raised)}`)).toBe('0');
    // The binding, copied from another caller's record to bob's: bob cannot redeem alice's flow.
    const alices = await first();
    const bobs = (
      await rawToolCall(
        url,
        'handle_approve',
        { amount: '1.00' },
        {
          capabilities: FORM,
          headers: { 'X-User': 'bob' },
        },
      )
    ).body.result?.requestState as string;
    redisCli(
      'HSET',
      `${prefix}handle:${bare(alices)}`,
      'b',
      redisCli('HGET', `${prefix}handle:${bare(bobs)}`, 'b'),
    );
    expect((await retry('bob', alices)).body.error).toMatchObject({ code: -32602 });
    expect(runs.count('handle_approve:approved')).toBe(approved);
    // An untouched flow still completes.
    expect((await retry('bob', bobs)).body.result).toMatchObject({ resultType: 'complete' });
  });
});

describe('BullMQ jobs and control messages edited in Redis', () => {
  const logger = new CapturingLogger();
  let worker: TestServer;
  const queueName = 'edited-jobs';
  const capabilities = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
  const send = (method: string, params: Record<string, unknown>) =>
    rawRound(worker.url, method, params, { capabilities, headers: { 'x-user': 'alice' } });
  const options = (concurrency: number): Partial<McpModuleOptions> => ({
    ...shared(),
    tasks: {
      store: new RedisTaskStore(client, { keyPrefix: 'jobs:' }),
      runner: new BullMqTaskRunner(client, { queueName, concurrency }),
    },
  });

  beforeAll(async () => {
    worker = await startTestServer('express', { imports: [fleetTasksApp(options(2))] }, '/mcp', {
      logger,
    });
  });
  afterAll(() => worker?.close());

  const started = async (taskId: string) =>
    until(() => worker.app.get(FleetProbe).started, {
      done: (list) => list.includes(taskId),
      what: `${taskId} to start`,
    });
  const aborted = async (taskId: string) =>
    until(() => worker.app.get(FleetProbe).aborted, {
      done: (list) => list.includes(taskId),
      what: `${taskId} to be aborted`,
    });
  const create = async () =>
    (
      (await send('tools/call', { name: 'long_step', arguments: {} })).body.result as {
        taskId: string;
      }
    ).taskId;

  it('ignores an abort published without the keyring: the step runs on until a real cancel', async () => {
    const target = await create();
    const other = await create();
    await started(target);
    await started(other);
    // Forged: the runner's own format, without a tag, and with a tag of no keyring.
    const channel = `bull:${queueName}:nestjs-mcp:abort`;
    const mark = logger.lines.length;
    const forgedTag = `azE.${'A'.repeat(43)}`;
    for (let flood = 0; flood < 50; flood++) redisCli('PUBLISH', channel, `99 ${target}`);
    redisCli('PUBLISH', channel, `99 ${target} ${forgedTag}`);
    // A real cancel of another step, published after them on the same channel: once it is heard,
    // so were they.
    await send('tasks/cancel', { taskId: other });
    await aborted(other);
    expect(worker.app.get(FleetProbe).aborted).not.toContain(target);
    const task = (await send('tasks/get', { taskId: target })).body.result as { status: string };
    expect(task.status).toBe('working');
    // Heard and named by its channel, once for the flood (a PUBLISH loop cannot flood the log).
    const ignored = logger.lines
      .slice(mark)
      .filter((line) => line.text.includes(`A message on ${channel} is not one of the fleet's`));
    expect(ignored).toHaveLength(1);
    expectNoSecrets(loggedSince(logger, mark), forgedTag);
    await send('tasks/cancel', { taskId: target });
    await aborted(target);
  });

  it('never runs a queued step whose job data was pointed at another task', async () => {
    // Both slots busy, so the next step waits in the queue.
    const running = [await create(), await create()];
    for (const taskId of running) await started(taskId);
    const queued = await create();
    const jobKey = `bull:${queueName}:${queued}.1`;
    await until(() => client.exists(jobKey), 'the queued job');
    const data = JSON.parse(redisCli('HGET', jobKey, 'data')) as { tag: string };
    // Pointed at the first running task, keeping the tag: would run its handler a second time.
    redisCli('HSET', jobKey, 'data', JSON.stringify({ ...data, taskId: running[0] }));
    const mark = logger.lines.length;
    await send('tasks/cancel', { taskId: running[1] });
    const dropped = `A queued task step failed its integrity check and is dropped: ${jobKey}`;
    await until(() => loggedSince(logger, mark).includes(dropped), 'the edited job to be dropped');
    expectNoSecrets(loggedSince(logger, mark), data.tag);
    const probe = worker.app.get(FleetProbe);
    expect(probe.started.filter((taskId) => taskId === running[0])).toHaveLength(1);
    expect(probe.started).not.toContain(queued);
    await send('tasks/cancel', { taskId: running[0] });
    await send('tasks/cancel', { taskId: queued });
  });
});

describe('a step Redis refuses to queue (out of memory)', () => {
  const logger = new CapturingLogger();
  let server: TestServer;
  const capabilities = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

  beforeAll(async () => {
    server = await startTestServer(
      'express',
      {
        imports: [
          fleetTasksApp({
            ...shared(),
            redis: { url: redis.url, keyPrefix: 'oom:' },
            tasks: {
              maxTasksPerCaller: 1,
              runner: new BullMqTaskRunner(client, { queueName: 'oom', worker: false }),
            },
          }),
        ],
      },
      '/mcp',
      { logger },
    );
  });
  afterAll(() => server?.close());

  const create = (user = 'carol') =>
    rawRound(
      server.url,
      'tools/call',
      { name: 'owner_report', arguments: {} },
      {
        capabilities,
        headers: { 'x-user': user },
      },
    );

  /**
   * Sends `request` while Redis refuses writes (maxmemory 1, noeviction), and checks the answer is
   * the retryable -32000 of an unavailable store or runner, with nothing of Redis on the wire nor
   * its limits in the log; the log lines.
   */
  async function refusedOutOfMemory(request: () => Promise<RawRoundResponse>): Promise<string[]> {
    const mark = logger.lines.length;
    await client.config('SET', 'maxmemory-policy', 'noeviction');
    await client.config('SET', 'maxmemory', '1');
    let refused;
    try {
      refused = await request();
    } finally {
      await client.config('SET', 'maxmemory', '0');
    }
    expect(refused.body.error).toEqual({
      code: -32000,
      message: expect.stringMatching(
        /^Server busy: the (store|task runner) is unavailable$/,
      ) as unknown as string,
      data: { retryAfterMs: 1_000 },
    });
    expect(refused.text).not.toMatch(/OOM|script|maxmemory/i);
    const logged = logger.lines.slice(mark).map((line) => line.text);
    expect(logged.join('\n')).not.toMatch(/maxmemory|script:/);
    return logged;
  }

  it('answers the retryable -32000, says nothing of Redis on the wire, and gives the caller its slot back', async () => {
    const logged = await refusedOutOfMemory(() => create());
    expect(
      logged.some((text) => /The task (store|runner) is unavailable \(rejected OOM\)/.test(text)),
    ).toBe(true);
    // Nothing of the task is left holding carol's one slot: she creates a task at once.
    const again = await create();
    expect(again.body.result).toMatchObject({ resultType: 'task' });
  });

  it('answers tasks/cancel with the retryable -32000 while Redis is out of memory, and cancels once it is not', async () => {
    const created = await create('dave');
    const taskId = (created.body.result as { taskId: string }).taskId;
    const cancel = () =>
      rawRound(
        server.url,
        'tasks/cancel',
        { taskId },
        { capabilities, headers: { 'x-user': 'dave' } },
      );
    const logged = await refusedOutOfMemory(cancel);
    expect(logged.some((text) => /rejected OOM/.test(text))).toBe(true);
    const cancelled = await cancel();
    expect(cancelled.body.error).toBeUndefined();
  });
});
