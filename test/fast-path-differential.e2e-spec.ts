import { McpFastPath } from '../src/transport/fast-path';
import { newKeyring, startSampleApp } from './fixtures/sample-app';
import { ADAPTERS, type TestServer } from './utils/bootstrap';
import { rawRound, type RawRoundOptions, type RawRoundResponse } from './utils/mcp';

const CLIENT_INFO = { 'io.modelcontextprotocol/clientInfo': { name: 'diff', version: '1.0.0' } };
const FORM = { elicitation: { form: {} } };
const EVERYTHING = { elicitation: { form: {}, url: {} }, sampling: { tools: {} }, roots: {} };
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

interface Case {
  readonly label: string;
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly options?: RawRoundOptions;
  /** Whether a complete, ordinary request: the fast path must answer it. */
  readonly fast: boolean;
}

const tool = (name: string, args: Record<string, unknown> = {}) => ({ name, arguments: args });

/** Valid requests of every served method and outcome, and requests the fast path must decline. */
const CORPUS: Case[] = [
  ...[
    'test_simple_text',
    'test_image_content',
    'test_audio_content',
    'test_embedded_resource',
    'test_multiple_content_types',
    'test_error_handling',
    'side_effects',
  ].map((name) => ({
    label: `tools/call ${name}`,
    method: 'tools/call',
    params: tool(name),
    fast: true,
  })),
  {
    label: 'tools/call -32021 (capability missing)',
    method: 'tools/call',
    params: tool('test_missing_capability'),
    fast: true,
  },
  {
    label: 'tools/call input_required (form)',
    method: 'tools/call',
    params: tool('test_input_required_result_elicitation'),
    options: { capabilities: FORM },
    fast: true,
  },
  {
    label: 'tools/call input_required, several inputs',
    method: 'tools/call',
    params: tool('test_input_required_result_multiple_inputs'),
    options: { capabilities: EVERYTHING },
    fast: true,
  },
  {
    label: 'tools/call input_required with sealed state',
    method: 'tools/call',
    params: tool('transfer_funds', { amount: '12.50', to: 'bob' }),
    options: { capabilities: FORM },
    fast: true,
  },
  {
    label: 'tools/call schema 2020-12 valid',
    method: 'tools/call',
    params: tool('json_schema_2020_12_tool', { name: 'Ada', email: 'ada@example.com' }),
    fast: true,
  },
  {
    label: 'tools/call schema 2020-12 invalid',
    method: 'tools/call',
    params: tool('json_schema_2020_12_tool', { name: 5 }),
    fast: true,
  },
  {
    label: 'tools/call DTO invalid',
    method: 'tools/call',
    params: tool('transfer_funds', { amount: '', to: 'bob' }),
    options: { capabilities: FORM },
    fast: true,
  },
  {
    label: 'tools/call guard refusal',
    method: 'tools/call',
    params: tool('create_ticket', { title: 'x', priority: 'low' }),
    fast: true,
  },
  {
    label: 'tools/call guarded, allowed',
    method: 'tools/call',
    params: tool('create_ticket', { title: 'x', priority: 'low' }),
    options: { headers: { Authorization: 'Bearer alice' } },
    fast: true,
  },
  {
    label: 'tools/call unknown tool',
    method: 'tools/call',
    params: tool('no_such_tool'),
    fast: true,
  },
  {
    label: 'tools/call string id',
    method: 'tools/call',
    params: tool('test_simple_text'),
    options: { id: 'req-7' },
    fast: true,
  },
  {
    label: 'prompts/get simple',
    method: 'prompts/get',
    params: { name: 'test_simple_prompt' },
    fast: true,
  },
  {
    label: 'prompts/get with arguments',
    method: 'prompts/get',
    params: { name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } },
    fast: true,
  },
  {
    label: 'prompts/get with image',
    method: 'prompts/get',
    params: { name: 'test_prompt_with_image' },
    fast: true,
  },
  {
    label: 'prompts/get embedded resource',
    method: 'prompts/get',
    params: {
      name: 'test_prompt_with_embedded_resource',
      arguments: { resourceUri: 'test://static-text' },
    },
    fast: true,
  },
  { label: 'prompts/get unknown', method: 'prompts/get', params: { name: 'nope' }, fast: true },
  {
    label: 'resources/read text',
    method: 'resources/read',
    params: { uri: 'test://static-text' },
    fast: true,
  },
  {
    label: 'resources/read binary',
    method: 'resources/read',
    params: { uri: 'test://static-binary' },
    fast: true,
  },
  {
    label: 'resources/read template',
    method: 'resources/read',
    params: { uri: 'test://template/42/data' },
    fast: true,
  },
  {
    label: 'resources/read unknown',
    method: 'resources/read',
    params: { uri: 'test://missing' },
    fast: true,
  },
  { label: 'tools/list', method: 'tools/list', params: {}, fast: true },
  {
    label: 'tools/list with a cursor',
    method: 'tools/list',
    params: { cursor: 'abc' },
    fast: true,
  },
  { label: 'prompts/list', method: 'prompts/list', params: {}, fast: true },
  { label: 'resources/list', method: 'resources/list', params: {}, fast: true },
  { label: 'resources/templates/list', method: 'resources/templates/list', params: {}, fast: true },
  {
    label: 'tools/call of a task-only tool without the tasks extension (-32021)',
    method: 'tools/call',
    params: tool('failing_job'),
    fast: true,
  },
  {
    label: 'tools/call of a task-optional tool without the tasks extension (synchronous)',
    method: 'tools/call',
    params: tool('slow_compute', { seconds: 0, label: 'now' }),
    fast: true,
  },
  // Declined: the SDK answers these, on both apps.
  {
    label: 'declined: opts into tasks (a task is created)',
    method: 'tools/call',
    params: tool('slow_compute', { seconds: 0, label: 'task' }),
    options: { capabilities: TASKS },
    fast: false,
  },
  {
    label: 'declined: opts into tasks for a tool without task support',
    method: 'tools/call',
    params: tool('greet', { name: 'Ada' }),
    options: { capabilities: TASKS },
    fast: false,
  },
  {
    label: 'declined: tasks/get',
    method: 'tasks/get',
    params: { taskId: 'unknown-task' },
    options: { capabilities: TASKS },
    fast: false,
  },
  {
    label: 'declined: asks for progress',
    method: 'tools/call',
    params: { ...tool('test_simple_text'), _progress: true },
    fast: false,
  },
  {
    label: 'declined: asks for logs',
    method: 'tools/call',
    params: { ...tool('test_simple_text'), _log: true },
    fast: false,
  },
  {
    label: 'declined: Mcp-Name disagrees',
    method: 'tools/call',
    params: tool('test_simple_text'),
    options: { headers: { 'Mcp-Name': 'other' } },
    fast: false,
  },
  {
    label: 'declined: no protocol header',
    method: 'tools/list',
    params: {},
    options: { headers: { 'MCP-Protocol-Version': '' } },
    fast: false,
  },
];

function send(server: TestServer, testCase: Case, id: number): Promise<RawRoundResponse> {
  const params = { ...testCase.params };
  const extraMeta: Record<string, unknown> = { ...CLIENT_INFO };
  if (params._progress) extraMeta.progressToken = 'p-1';
  if (params._log) extraMeta['io.modelcontextprotocol/logLevel'] = 'info';
  delete params._progress;
  delete params._log;
  return rawRound(server.url, testCase.method, params, { id, ...testCase.options, extraMeta });
}

/** The answer with sealed state tokens (random by design) and timestamps replaced. */
function comparable(response: RawRoundResponse): unknown {
  const text = response.text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z/g, '<time>');
  const body = JSON.parse(text) as { result?: { requestState?: unknown } };
  if (typeof body.result?.requestState === 'string') body.result.requestState = '<sealed>';
  const created = body.result as { taskId?: unknown } | undefined;
  if (typeof created?.taskId === 'string') created.taskId = '<random task id>';
  return { status: response.status, body };
}

/**
 * The fast path and the SDK path of the same app give the same answers (status and body, member
 * order aside) to every request of the corpus; requests the fast path must decline reach the SDK.
 */
describe.each(ADAPTERS)('fast path against the SDK path over %s', (adapter) => {
  const keyring = newKeyring(['k1']);
  let fast: TestServer;
  let sdk: TestServer;

  beforeAll(async () => {
    fast = await startSampleApp(adapter, { MCP_KEYRING: keyring.json });
    sdk = await startSampleApp(adapter, { MCP_KEYRING: keyring.json, MCP_FAST_PATH: 'off' });
  });

  afterAll(async () => {
    await fast?.close();
    await sdk?.close();
  });

  it.each(CORPUS.map((testCase, index) => [testCase.label, testCase, index] as const))(
    '%s',
    async (_label, testCase, index) => {
      const served = jest.spyOn(McpFastPath.prototype, 'serve');
      try {
        const viaFast = await send(fast, testCase, 100 + index);
        expect(served).toHaveBeenCalledTimes(testCase.fast ? 1 : 0);
        served.mockClear();
        const viaSdk = await send(sdk, testCase, 100 + index);
        expect(served).not.toHaveBeenCalled();
        expect(comparable(viaFast)).toEqual(comparable(viaSdk));
      } finally {
        served.mockRestore();
      }
    },
  );
});
