import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { MemoryTaskStore } from '../../../src/entry/tasks';
import { McpFastPath } from '../../../src/wire/http/fast-path';
import { DifferentialFixturesModule, THROWN_KINDS } from './differential.fixtures';
import { ErrorMappingModule } from '../pipeline/error-mapping.fixtures';
import { InputRequestFixturesModule } from '../input/input-requests.fixtures';
import { MALFORMED_PARAMS } from './malformed-params';
import { ReplayFixturesModule } from '../request-state/replay.fixtures';
import { RequestStateFixturesModule } from '../request-state/request-state.fixtures';
import { newKeyring, startSampleApp, type SampleEnv } from '../../fixtures/sample-app';
import { StateHandleFixturesModule } from '../request-state/state-handles.fixtures';
import { tasksApp } from '../ext/tasks/tasks.fixtures';
import {
  ALL_ADAPTERS,
  startTestServer,
  type AdapterName,
  type TestServer,
} from '../../utils/bootstrap';
import { PROTOCOL_VERSION, rawToolCall, rpcBody, rpcHeaders, stateOf } from '../../utils/mcp';
import { httpPost, stalledRequest, type StalledRequest } from '../../utils/raw-http';
import { until } from '../../utils/wait';

/*
 * The fast path answers complete 2026-07-28 calls and lists without the SDK; everything else, and
 * everything it declines, goes through the SDK. Both must give the same answer: this suite sends
 * every request of its corpus to two copies of the same app, one with `http.fastPath: false`, and
 * compares status, headers (but framing and date) and body, byte for byte (sealed tokens, task ids
 * and timestamps, random by design, replaced), checking which requests the fast path served.
 *
 * The corpus covers every row of docs/errors.md that a request to a hot method (tools/call,
 * prompts/get, resources/read, the four lists) can reach; the last tests check that against the
 * document itself, so that a row added there without a case here fails.
 */

const FORM = { elicitation: { form: {} } };
const EVERYTHING = { elicitation: { form: {}, url: {} }, sampling: { tools: {} }, roots: {} };
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const TRANSFER = { amount: '12.50', to: 'bob' };
const APPROVE = { approval: { action: 'accept', content: { approve: true } } };
const GO = { next: { action: 'accept', content: { ok: true } } };
const MiB = 1024 * 1024;
/** The sample pair's own limits (sample app environment), so that their rows can be reached. */
const ENV: SampleEnv = { MCP_STATE_MAX_ROUNDS: '2', MCP_REQUEST_BODY_TIMEOUT_MS: '1000' };

/** One HTTP exchange as received. */
interface Exchange {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

/** The HTTP request of a case. */
interface HttpRequest {
  readonly headers: Record<string, string>;
  readonly body: string | Buffer;
}

/** Apps besides the pair under test, sealing with the same keys. */
interface Helpers {
  /** Default rounds: states past the sample pair's round limit (2). */
  readonly manyRounds: TestServer;
  /** States that expire 1 ms after they are sealed. */
  readonly shortLived: TestServer;
}

/** What a case's preparation hands its request. */
interface Prepared {
  readonly requestState?: unknown;
  readonly inputResponses?: unknown;
  readonly capabilities?: Record<string, unknown>;
  /** HTTP headers to set; `''` removes one. */
  readonly headers?: Record<string, string>;
  /** Members of `params` sent exactly as given (`null` included). */
  readonly params?: Record<string, unknown>;
  /** Members of `params._meta` besides the envelope. */
  readonly meta?: Record<string, unknown>;
}

interface Case {
  readonly label: string;
  /**
   * The docs/errors.md row it reaches: the start of the row's first cell (see the last tests);
   * none for a request that is simply served.
   */
  readonly row?: string;
  /** Whether the fast path must answer it (`false`: it must leave it to the SDK, or never see it). */
  readonly fast: boolean;
  /** Which pair answers it. Default: the sample app. */
  readonly pair?: 'sample' | 'limits';
  /** The request, from its JSON-RPC id and what `prepare` made. */
  readonly request: (id: number, prepared: Prepared) => HttpRequest;
  /** Done first on the app under test (round 1 of a flow, filling a store); not compared. */
  readonly prepare?: (server: TestServer, helpers: Helpers, id: number) => Promise<Prepared>;
  /** Sends the request some other way than at once and whole. */
  readonly send?: (server: TestServer, request: HttpRequest) => Promise<Exchange>;
}

/** The `Mcp-Name` a request of `method` mirrors. */
function nameOf(method: string, params: Record<string, unknown>): string | undefined {
  if (method === 'resources/read') return params.uri as string;
  if (method === 'tools/call' || method === 'prompts/get') return params.name as string;
  return undefined;
}

/** A 2026-07-28 request: the `_meta` envelope (with client info), its headers, the extra members. */
function rpcRequest(
  method: string,
  params: Record<string, unknown>,
  id: number | string,
  extra: Prepared = {},
): HttpRequest {
  const full: Record<string, unknown> = { ...params, ...extra.params };
  if (extra.requestState !== undefined) full.requestState = extra.requestState;
  if (extra.inputResponses !== undefined) full.inputResponses = extra.inputResponses;
  const headers: Record<string, string> = { ...rpcHeaders(method, nameOf(method, full)) };
  for (const [name, value] of Object.entries(extra.headers ?? {})) {
    for (const existing of Object.keys(headers))
      if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
    if (value !== '') headers[name] = value;
  }
  const meta = { 'io.modelcontextprotocol/clientInfo': { name: 'diff', version: '1.0.0' } };
  const body = rpcBody(method, full, id, extra.capabilities ?? {}, { ...meta, ...extra.meta });
  return { headers, body };
}

/** A body of `method` whose `"@x"` placeholder is replaced by `raw` JSON text. */
const withRaw = (method: string, params: Record<string, unknown>, id: number, raw: string) =>
  rpcBody(method, params, id).replace('"@x"', raw);

type Extra = Prepared & Pick<Case, 'pair' | 'prepare' | 'send'> & { fast?: boolean };

/** A 2026-07-28 request of `method`: the fast path answers it unless `extra.fast` is `false`. */
function rpc(
  label: string,
  row: string | undefined,
  method: string,
  params: Record<string, unknown>,
  extra: Extra = {},
): Case {
  const { fast = true, pair, prepare, send, ...request } = extra;
  return {
    label,
    row,
    fast,
    pair,
    prepare,
    send,
    request: (id, prepared) => rpcRequest(method, params, id, { ...request, ...prepared }),
  };
}

const tool = (name: string, args: Record<string, unknown> = {}) => ({ name, arguments: args });
/** `tools/call` of `name` with `args`. */
const call = (
  label: string,
  row: string | undefined,
  name: string,
  args: Record<string, unknown> = {},
  extra: Extra = {},
) => rpc(label, row, 'tools/call', tool(name, args), extra);

/** A request written by hand (headers and body): the fast path never sees these. */
const raw = (
  label: string,
  row: string,
  request: (id: number) => HttpRequest,
  send?: Case['send'],
): Case => ({ label, row, fast: false, request, send });

/**
 * A retry of tool `name` under the state `state` makes (on the app under test, or a helper),
 * answering with `inputResponses`.
 */
function retry(
  label: string,
  row: string | undefined,
  name: string,
  args: Record<string, unknown>,
  state: (server: TestServer, helpers: Helpers, id: number) => Promise<unknown>,
  inputResponses: unknown,
  capabilities: Record<string, unknown> = FORM,
): Case {
  return call(label, row, name, args, {
    capabilities,
    prepare: async (server, helpers, id) => ({
      requestState: await state(server, helpers, id),
      inputResponses,
    }),
  });
}

/** A `tools/list` cursor naming `name`, as the module spells them (this server has no such tool). */
const toolsCursorOf = (name: string) => Buffer.from(`tools:${name}`).toString('base64url');

/** The `nextCursor` of the page `cursor` points at (the first without one). */
async function pageCursor(server: TestServer, method: string, cursor?: string) {
  const params = cursor === undefined ? {} : { cursor };
  const { headers, body } = rpcRequest(method, params, 'page');
  const answer = await httpPost(server.url, headers, body);
  return (JSON.parse(answer.text) as { result: { nextCursor?: string } }).result.nextCursor;
}

const nextCursorOf = async (server: TestServer, method: string) => {
  const cursor = await pageCursor(server, method);
  if (cursor === undefined) throw new Error(`${method} of this pair has one page only`);
  return cursor;
};

/** The cursor of the last page of `method`. */
async function lastCursorOf(server: TestServer, method: string): Promise<string> {
  let cursor = await nextCursorOf(server, method);
  for (let next = await pageCursor(server, method, cursor); next;) {
    cursor = next;
    next = await pageCursor(server, method, cursor);
  }
  return cursor;
}

/** The row of a request that is simply served. */
const SERVED = undefined;

/** The state with one base64url character in the middle of its ciphertext changed. */
function flipMiddle(state: string): string {
  const at = state.lastIndexOf('.') + Math.floor((state.length - state.lastIndexOf('.')) / 2);
  return `${state.slice(0, at)}${state[at] === 'A' ? 'B' : 'A'}${state.slice(at + 1)}`;
}

/** The state naming another key id (second segment) than the one that sealed it. */
function otherKeyId(state: string): string {
  const segments = state.split('.');
  segments[1] = Buffer.from('k9', 'latin1').toString('base64url');
  return segments.join('.');
}

/** Round 1 of tool `name` on `server`: its sealed state. */
async function firstRound(
  server: TestServer,
  name: string,
  args: Record<string, unknown> = {},
  options: { id?: number; capabilities?: Record<string, unknown> } = {},
): Promise<string> {
  return stateOf(
    await rawToolCall(server.url, name, args, {
      capabilities: options.capabilities ?? FORM,
      ...(options.id === undefined ? {} : { id: options.id }),
    }),
  );
}

/** `collect_rounds` of `rounds` rounds on `server`, answered `answers` times: the last state. */
async function collectState(server: TestServer, rounds: number, answers: number): Promise<string> {
  let state = await firstRound(server, 'collect_rounds', { rounds });
  for (let step = 1; step <= answers; step++) {
    const inputResponses = {
      [`step-${step}`]: { action: 'accept', content: { value: `v${step}` } },
    };
    const next = await rawToolCall(
      server.url,
      'collect_rounds',
      { rounds },
      { capabilities: FORM, requestState: state, inputResponses },
    );
    state = stateOf(next);
  }
  return state;
}

/** Sends the headers and `firstBytes` of the body, and waits for the answer. */
async function partly(server: TestServer, request: HttpRequest, firstBytes: number) {
  const body = Buffer.from(request.body);
  const sent = stalledRequest('POST', server.url, request.headers, body, firstBytes);
  try {
    return await sent.response;
  } finally {
    sent.abort();
  }
}
/** Half the body, then nothing: a body timeout. */
const stalled = (server: TestServer, request: HttpRequest) =>
  partly(server, request, Buffer.byteLength(request.body) >> 1);
/** The headers only: an answer from `Content-Length` alone. */
const headersOnly = (server: TestServer, request: HttpRequest) => partly(server, request, 0);

/**
 * Holds 4 MiB bodies (headers only; their length is reserved on arrival) until the in-flight
 * budget (32 MiB) refuses the next: its answer. The held ones are dropped after.
 */
async function overInFlightBudget(server: TestServer, request: HttpRequest): Promise<Exchange> {
  const body = Buffer.from(request.body);
  const held: StalledRequest[] = [];
  try {
    for (let i = 0; i < 12; i++)
      held.push(stalledRequest('POST', server.url, request.headers, body, 0));
    const refused = await until(() => held.find((each) => each.answered()), {
      what: 'a body over the in-flight budget to be refused',
    });
    return await refused.response;
  } finally {
    for (const each of held) each.abort();
  }
}

/** A body of `bytes`, spaces after a tools/call of `test_simple_text`. */
const padded = (bytes: number, id: number) =>
  Buffer.alloc(bytes, ' ').fill(rpcBody('tools/call', tool('test_simple_text'), id), 0);
const SIMPLE_TEXT_HEADERS = rpcHeaders('tools/call', 'test_simple_text');

/** 2025-era request headers: no protocol version header, both media types accepted. */
const LEGACY_HEADERS = {
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
};
const legacyCall = (id: number) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: tool('test_simple_text') });

/** The row of what an operation throws, by the kind the `throws` operations throw. */
const THROWN_ROWS: Record<(typeof THROWN_KINDS)[number], string> = {
  protocol: '`McpProtocolException(code, message, data)`',
  url_elicitation: '`McpProtocolException(code, message, data)`',
  capability: '`MissingRequiredClientCapabilityError`',
  forbidden: '`ForbiddenException`',
  unauthorized: '`UnauthorizedException`',
  throttled: '`ThrottlerException`',
  bad_request: '`BadRequestException`',
  not_found: 'Other 4xx `HttpException`',
  tool_error: '`McpToolError(message)`',
  server_error: '5xx `HttpException`',
  error: '5xx `HttpException`',
  value: '5xx `HttpException`',
};

/** Rows of docs/errors.md, by the start of their first cell. */
const ROW = {
  host: '`Host` header not localhost',
  origin: '`Origin` header present',
  tooLarge: 'Body larger than `http.maxRequestBodyBytes`',
  notJson: 'Body is not JSON',
  notJsonRpc: 'JSON that is not a JSON-RPC request',
  tooDeep: 'Nesting deeper than `http.json.maxDepth`',
  longNumber: 'A number longer than `http.json.maxNumberLength`',
  paramHeader: '`Mcp-Param-<Name>` header',
  contentType: '`Content-Type` is not `application/json`',
  noVersionHeader: '`_meta` names `2026-07-28`, no `MCP-Protocol-Version`',
  legacy: '**No** `MCP-Protocol-Version` header',
  versionsDiffer: '`MCP-Protocol-Version` differs',
  noEnvelope: 'An `MCP-Protocol-Version` other than a 2025-era version',
  badEnvelope: '`_meta` without `io.modelcontextprotocol/clientCapabilities`',
  unsupportedVersion: '`_meta` names a version the server does not support',
  mcpMethod: '`Mcp-Method` missing',
  mcpName: '`Mcp-Name` missing or not the body',
  legacyAccept: 'A 2025-era request whose `Accept` lacks',
  noSession: 'A 2025-era request (not `initialize`) without `Mcp-Session-Id`',
  sessionVersion: 'A session request whose `MCP-Protocol-Version`',
  unknownSession: '`Mcp-Session-Id` unknown',
  unknownTool: '`tools/call` of an unknown tool',
  unknownPrompt: '`prompts/get` of an unknown prompt',
  unknownResource: '`resources/read` of a URI no resource',
  taskRequired: "`tools/call` of a `taskSupport: 'required'` tool",
  storeFull: 'A task-creating `tools/call` while the task store is full',
  perCaller: 'A task-creating `tools/call` past `tasks.maxTasksPerCaller`',
  callTooLarge: 'A task-creating `tools/call` whose call',
  hugeNumberTask: 'A task-creating `tools/call` with a number a double cannot hold',
  hugeNumberState: 'A number a double cannot hold',
  forbidden: '`ForbiddenException`',
  unauthorized: '`UnauthorizedException`',
  scopes: "An operation's `scopes`",
  hidden: "A guard's refusal of an operation the caller's list does not show",
  invalidArguments: 'Arguments that break the advertised DTO',
  other4xx: 'Other 4xx `HttpException`',
  bug: '5xx `HttpException`',
  required: 'A `REQUIRED` declared capability is missing',
  conditional: 'The handler emits a request the client cannot perform',
  undeclared: 'The handler emits a request of a type it did not declare',
  responsesNotObject: '`inputResponses` is not an object',
  responseShape: 'An input response matches none',
  typedAnswer: '`find(key, Dto)` and the accepted content fails',
  frameworkState: 'Framework state tampered',
  replayQuestion: 'A `replay: true` handler asks a different question',
  replayTooLarge: "A `replay: true` round's answers so far exceed",
  notReplay: '`ctx.elicit()` and friends in an operation without',
  appState: 'Application state empty or over',
  handle: '[State handle](state-handles.md) malformed',
  handleStore: 'Handle data over `requestState.maxHandleDataBytes`',
  nonStringState: '`requestState` that is not a string',
  outgoing: 'An outgoing state cannot be produced',
  maxRequestBodyBytes: '`http.maxRequestBodyBytes`',
  bodyTimeout: '`http.requestBodyTimeoutMs`',
  inFlight: '`http.maxInFlightRequestBytes`',
  maxDepth: '`http.json.maxDepth`',
  maxNodes: '`http.json.maxNodes`',
  maxObjectKeys: '`http.json.maxObjectKeys`',
  maxArrayLength: '`http.json.maxArrayLength`',
  maxStringLength: '`http.json.maxStringLength`',
  numberBounds: '`http.json.maxNumberLength` / `http.json.maxExponent`',
  malformedParams: 'Malformed params of `tools/call`',
  maxEncodedBytes: '`requestState.maxEncodedBytes`',
  maxDecodedBytes: '`requestState.maxDecodedBytes`',
  maxLifetime: '`requestState.maxLifetimeMs`',
  maxRounds: '`requestState.maxRounds`',
  idLength: 'JSON-RPC id length',
  appStateLimit: 'Application-protected state',
  maxHandleData: '`requestState.maxHandleDataBytes`',
  maxStateHandles: '`requestState.maxStateHandles` (',
} as const;

const CORPUS: Case[] = [
  // Served: complete answers of every served method.
  ...[
    'test_simple_text',
    'test_image_content',
    'test_audio_content',
    'test_embedded_resource',
    'test_multiple_content_types',
    'test_error_handling',
    'side_effects',
    'weather',
  ].map((name) => call(`tools/call ${name}`, SERVED, name)),
  {
    label: 'tools/call with a string id',
    fast: true,
    request: () => rpcRequest('tools/call', tool('test_simple_text'), 'req-7'),
  },
  call(
    'input_required (form)',
    SERVED,
    'test_input_required_result_elicitation',
    {},
    {
      capabilities: FORM,
    },
  ),
  call(
    'input_required, several inputs',
    SERVED,
    'test_input_required_result_multiple_inputs',
    {},
    {
      capabilities: EVERYTHING,
    },
  ),
  call('input_required with sealed state', SERVED, 'transfer_funds', TRANSFER, {
    capabilities: FORM,
  }),
  retry(
    'a completing retry with sealed state',
    SERVED,
    'transfer_funds',
    TRANSFER,
    (server) => firstRound(server, 'transfer_funds', TRANSFER),
    APPROVE,
  ),
  call('a JSON Schema 2020-12 tool', SERVED, 'json_schema_2020_12_tool', {
    name: 'Ada',
    email: 'ada@example.com',
  }),
  call(
    'a guarded tool, allowed',
    SERVED,
    'create_ticket',
    { title: 'x', priority: 'low' },
    {
      headers: { Authorization: 'Bearer alice' },
    },
  ),
  call('a task-optional tool without the tasks extension', SERVED, 'slow_compute', {
    seconds: 0,
    label: 'now',
  }),
  rpc('prompts/get', SERVED, 'prompts/get', { name: 'test_simple_prompt' }),
  rpc('prompts/get with arguments', SERVED, 'prompts/get', {
    name: 'test_prompt_with_arguments',
    arguments: { arg1: 'a', arg2: 'b' },
  }),
  rpc('prompts/get with an image', SERVED, 'prompts/get', { name: 'test_prompt_with_image' }),
  rpc('prompts/get with an embedded resource', SERVED, 'prompts/get', {
    name: 'test_prompt_with_embedded_resource',
    arguments: { resourceUri: 'test://static-text' },
  }),
  ...[
    'test://static-text',
    'test://static-binary',
    'test://template/42/data',
    'fixtures://logo.png',
  ].map((uri) => rpc(`resources/read ${uri}`, SERVED, 'resources/read', { uri })),
  ...['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list'].map((method) =>
    rpc(method, SERVED, method, {}),
  ),
  rpc('tools/list with a cursor it never gave', 'A list method', 'tools/list', { cursor: 'abc' }),
  ...['prompts/list', 'resources/list', 'resources/templates/list'].map((method) =>
    rpc(
      `${method} with a tools/list cursor`,
      'A list method',
      method,
      {},
      {
        prepare: async () => ({ params: { cursor: toolsCursorOf('list_a') } }),
      },
    ),
  ),
  rpc('tools/list, first page (page size 2)', SERVED, 'tools/list', {}, { pair: 'limits' }),
  rpc(
    'tools/list, the page after a nextCursor',
    SERVED,
    'tools/list',
    {},
    {
      pair: 'limits',
      prepare: async (server) => ({ params: { cursor: await nextCursorOf(server, 'tools/list') } }),
    },
  ),
  rpc(
    'tools/list, the last page',
    SERVED,
    'tools/list',
    {},
    {
      pair: 'limits',
      prepare: async (server) => ({ params: { cursor: await lastCursorOf(server, 'tools/list') } }),
    },
  ),
  rpc('prompts/list, first page (page size 2)', SERVED, 'prompts/list', {}, { pair: 'limits' }),
  rpc(
    'tools/list with a requestState (lists carry none: ignored)',
    SERVED,
    'tools/list',
    {},
    {
      params: { requestState: 42 },
    },
  ),
  call(
    'Mcp-Name with spaces around it (HTTP trims them)',
    SERVED,
    'test_simple_text',
    {},
    {
      headers: { 'Mcp-Name': '  test_simple_text ' },
    },
  ),
  call(
    'asks for progress (SDK: streamed)',
    SERVED,
    'test_simple_text',
    {},
    {
      meta: { progressToken: 'p-1' },
      fast: false,
    },
  ),
  call(
    'asks for logs (SDK: streamed)',
    SERVED,
    'test_simple_text',
    {},
    {
      meta: { 'io.modelcontextprotocol/logLevel': 'info' },
      fast: false,
    },
  ),
  call(
    'opts into tasks: a task is created (SDK)',
    SERVED,
    'slow_compute',
    { seconds: 0, label: 'task' },
    {
      capabilities: TASKS,
      fast: false,
    },
  ),
  call(
    'opts into tasks, a tool without task support (SDK)',
    SERVED,
    'greet',
    { name: 'Ada' },
    {
      capabilities: TASKS,
      fast: false,
    },
  ),

  // Before the request reaches the SDK: the fast path never sees these.
  call(
    'a Host of another site',
    ROW.host,
    'test_simple_text',
    {},
    {
      headers: { Host: 'evil.example.com' },
      fast: false,
    },
  ),
  call(
    'an Origin of another site',
    ROW.origin,
    'test_simple_text',
    {},
    {
      headers: { Origin: 'https://evil.example.com' },
      fast: false,
    },
  ),
  raw(
    'a Content-Length over 4 MiB',
    ROW.tooLarge,
    (id) => ({ headers: SIMPLE_TEXT_HEADERS, body: padded(4 * MiB + 1, id) }),
    headersOnly,
  ),
  raw(
    'a Content-Length over 4 MiB, tools/list',
    ROW.maxRequestBodyBytes,
    (id) => ({
      headers: rpcHeaders('tools/list'),
      body: Buffer.alloc(4 * MiB + 1, ' ').fill(rpcBody('tools/list', {}, id), 0),
    }),
    headersOnly,
  ),
  raw('a body that is not JSON', ROW.notJson, () => ({
    headers: SIMPLE_TEXT_HEADERS,
    body: '{"jsonrpc":"2.0","id":1,',
  })),
  raw('a body nested 65 deep', ROW.tooDeep, (id) => ({
    headers: SIMPLE_TEXT_HEADERS,
    body: withRaw(
      'tools/call',
      tool('test_simple_text', { deep: '@x' }),
      id,
      `${'['.repeat(62)}${']'.repeat(62)}`,
    ),
  })),
  raw('a list body nested 65 deep', ROW.maxDepth, (id) => ({
    headers: rpcHeaders('tools/list'),
    body: withRaw('tools/list', { deep: '@x' }, id, `${'['.repeat(63)}${']'.repeat(63)}`),
  })),
  raw('a 1,025-digit number', ROW.longNumber, (id) => ({
    headers: SIMPLE_TEXT_HEADERS,
    body: withRaw('tools/call', tool('test_simple_text', { n: '@x' }), id, '9'.repeat(1_025)),
  })),
  raw('an exponent of 10001', ROW.numberBounds, (id) => ({
    headers: SIMPLE_TEXT_HEADERS,
    body: withRaw('tools/call', tool('test_simple_text', { n: '@x' }), id, '1e10001'),
  })),
  ...[
    ['different from the argument', { 'Mcp-Param-Region': 'us' }],
    ['missing', {}],
    ['malformed base64', { 'Mcp-Param-Region': '=?base64?%%%?=' }],
  ].map(([problem, headers]) =>
    call(
      `Mcp-Param-Region ${problem as string}`,
      ROW.paramHeader,
      'test_custom_header',
      { region: 'eu' },
      {
        headers: headers as Record<string, string>,
        fast: false,
      },
    ),
  ),
  call(
    'a 1,048,577-character string',
    ROW.maxStringLength,
    'test_simple_text',
    { s: 'x'.repeat(MiB + 1) },
    { fast: false },
  ),
  call(
    '20,001 JSON values',
    ROW.maxNodes,
    'test_simple_text',
    { numbers: Array.from({ length: 19_991 }, (_, i) => i) },
    { fast: false },
  ),
  call(
    'an object of 1,001 members',
    ROW.maxObjectKeys,
    'test_simple_text',
    Object.fromEntries(Array.from({ length: 1_001 }, (_, i) => [`k${i}`, i])),
    { fast: false },
  ),
  call(
    'an array of 10,001 items',
    ROW.maxArrayLength,
    'test_simple_text',
    { a: Array.from({ length: 10_001 }, () => 0) },
    { fast: false },
  ),
  call(
    'a body that stops half way (1 s here)',
    ROW.bodyTimeout,
    'test_simple_text',
    {},
    { fast: false, send: stalled },
  ),
  ...MALFORMED_PARAMS.filter(({ method }) => method !== 'completion/complete').map(
    ({ method, label, params }): Case =>
      params !== null && typeof params === 'object' && !Array.isArray(params)
        ? rpc(
            `malformed ${method}: ${label}`,
            ROW.malformedParams,
            method,
            params as Record<string, unknown>,
            { fast: false },
          )
        : raw(`malformed ${method}: ${label}`, ROW.malformedParams, (id) => ({
            headers: rpcHeaders(method),
            body: JSON.stringify({
              jsonrpc: '2.0',
              id,
              method,
              ...(params === undefined ? {} : { params }),
            }),
          })),
  ),

  // The SDK's envelope and header rules: the fast path leaves every one of these to it.
  ...[
    ['Content-Type text/plain', 'text/plain'],
    ['no Content-Type', ''],
  ].map(([label, value]) =>
    call(
      label,
      ROW.contentType,
      'test_simple_text',
      {},
      { headers: { 'Content-Type': value }, fast: false },
    ),
  ),
  call(
    'no MCP-Protocol-Version header',
    ROW.noVersionHeader,
    'test_simple_text',
    {},
    { headers: { 'MCP-Protocol-Version': '' }, fast: false },
  ),
  raw('2025-era tools/call (no protocol header, no _meta)', ROW.legacy, (id) => ({
    headers: LEGACY_HEADERS,
    body: legacyCall(id),
  })),
  raw('2025-era tools/call without a session', ROW.noSession, (id) => ({
    headers: LEGACY_HEADERS,
    body: legacyCall(id),
  })),
  raw('2025-era tools/call on an unknown session', ROW.unknownSession, (id) => ({
    headers: {
      ...LEGACY_HEADERS,
      'Mcp-Session-Id': 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      'MCP-Protocol-Version': '2025-11-25',
    },
    body: legacyCall(id),
  })),
  raw('2025-era tools/call naming a version no session speaks', ROW.sessionVersion, (id) => ({
    headers: {
      ...LEGACY_HEADERS,
      'Mcp-Session-Id': 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      'MCP-Protocol-Version': '2024-01-01',
    },
    body: legacyCall(id),
  })),
  raw('2025-era tools/call accepting only JSON', ROW.legacyAccept, (id) => ({
    headers: { ...LEGACY_HEADERS, Accept: 'application/json' },
    body: legacyCall(id),
  })),
  call(
    'MCP-Protocol-Version differs from _meta',
    ROW.versionsDiffer,
    'test_simple_text',
    {},
    { headers: { 'MCP-Protocol-Version': '2025-11-25' }, fast: false },
  ),
  raw('a 2026-07-28 header, no _meta', ROW.noEnvelope, (id) => ({
    headers: SIMPLE_TEXT_HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: tool('test_simple_text'),
    }),
  })),
  raw('_meta without clientCapabilities', ROW.badEnvelope, (id) => ({
    headers: SIMPLE_TEXT_HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        ...tool('test_simple_text'),
        _meta: { 'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION },
      },
    }),
  })),
  call(
    '_meta clientInfo not an object',
    ROW.badEnvelope,
    'test_simple_text',
    {},
    { meta: { 'io.modelcontextprotocol/clientInfo': 'diff' }, fast: false },
  ),
  // What the fast path classifies itself, against what the SDK's classifier decides.
  ...[
    ['with its own keys beside the envelope', { 'example.com/trace': { id: 'abc' }, 'x/y': 1 }],
    ['with a related-task key', { 'io.modelcontextprotocol/related-task': { taskId: 't-1' } }],
    [
      'with a unicode client info, title and icons',
      {
        'io.modelcontextprotocol/clientInfo': {
          name: 'клиент ✓',
          version: '1.0.0',
          title: '😀 client',
          icons: [{ src: 'https://example.com/i.png' }],
          websiteUrl: 'https://example.com',
        },
      },
    ],
  ].map(([label, meta]) =>
    call(
      `_meta ${label as string}`,
      SERVED,
      'test_simple_text',
      {},
      {
        meta: meta as Record<string, unknown>,
      },
    ),
  ),
  ...[
    ['of unknown and experimental kinds', { experimental: { x: { y: [1] } }, other: { a: 1 } }],
    ['with a null inside an extension', { extensions: { 'example.com/x': { on: null } } }],
    ['with unicode keys', { extensions: { 'example.com/ключ': { значение: '✓' } } }],
  ].map(([label, capabilities]) =>
    call(
      `capabilities ${label as string}`,
      SERVED,
      'test_simple_text',
      {},
      {
        capabilities: capabilities as Record<string, unknown>,
      },
    ),
  ),
  ...[
    ['roots.listChanged not a boolean', { roots: { listChanged: 'yes' } }],
    ['sampling not an object', { sampling: 5 }],
    ['an extension that is not an object', { extensions: { 'example.com/x': 1 } }],
  ].map(([label, capabilities]) =>
    call(
      `capabilities with ${label as string}`,
      ROW.badEnvelope,
      'test_simple_text',
      {},
      {
        capabilities: capabilities as Record<string, unknown>,
        fast: false,
      },
    ),
  ),
  call(
    '_meta clientInfo without a version',
    ROW.badEnvelope,
    'test_simple_text',
    {},
    {
      meta: { 'io.modelcontextprotocol/clientInfo': { name: 'diff' } },
      fast: false,
    },
  ),
  ...(
    [
      ['a negative id', -7],
      ['an id of 0', 0],
      ['the largest safe integer id', Number.MAX_SAFE_INTEGER],
      ['a unicode string id', 'ид-✓'],
    ] as const
  ).map(([label, rpcId]): Case => ({
    label: `${label}, tools/call`,
    fast: true,
    request: () => rpcRequest('tools/call', tool('test_simple_text'), rpcId),
  })),
  ...(
    [
      ['a result member beside the method', ',"result":{}'],
      ['an error member beside the method', ',"error":{"code":1,"message":"x"}'],
      ['an unknown top-level member', ',"extra":1'],
      ['an id that is a fraction', '', '1.5'],
      ['an id past 2^53', '', '9007199254740993'],
      ['an id a double cannot hold', '', '1e400'],
    ] as const
  ).map(([label, member, rawId = '1']) =>
    raw(`${label}, tools/call`, ROW.notJsonRpc, () => ({
      headers: SIMPLE_TEXT_HEADERS,
      body: rpcBody('tools/call', tool('test_simple_text'), 424242)
        .replace('"id":424242', `"id":${rawId}`)
        .replace(/}$/, `${member}}`),
    })),
  ),
  ...['', '2099-01-01'].map((header) =>
    call(
      `_meta names an unsupported version, header ${header || 'absent'}`,
      ROW.unsupportedVersion,
      'test_simple_text',
      {},
      {
        headers: { 'MCP-Protocol-Version': header },
        meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
        fast: false,
      },
    ),
  ),
  ...[
    ['no Mcp-Method', ROW.mcpMethod, { 'Mcp-Method': '' }],
    ['Mcp-Method of another method', ROW.mcpMethod, { 'Mcp-Method': 'prompts/get' }],
    ['Mcp-Name of another tool', ROW.mcpName, { 'Mcp-Name': 'other' }],
    ['no Mcp-Name', ROW.mcpName, { 'Mcp-Name': '' }],
  ].map(([label, row, headers]) =>
    call(
      label as string,
      row as string,
      'test_simple_text',
      {},
      { headers: headers as Record<string, string>, fast: false },
    ),
  ),
  rpc(
    'no Mcp-Name on resources/read',
    ROW.mcpName,
    'resources/read',
    { uri: 'test://static-text' },
    { headers: { 'Mcp-Name': '' }, fast: false },
  ),

  // Dispatch.
  call('an unknown tool', ROW.unknownTool, 'no_such_tool'),
  rpc('an unknown prompt', ROW.unknownPrompt, 'prompts/get', { name: 'nope' }),
  rpc('an unknown resource', ROW.unknownResource, 'resources/read', { uri: 'test://missing' }),

  // Tasks (a task-creating call always takes the SDK's path). The limits pair allows 2 tasks, 1 per caller.
  call('a task-only tool without the tasks extension', ROW.taskRequired, 'failing_job'),
  call(
    'a task past tasks.maxTasksPerCaller',
    ROW.perCaller,
    'wait_for_cancel',
    {},
    {
      pair: 'limits',
      fast: false,
      capabilities: TASKS,
      headers: { 'x-user': 'per-caller' },
      prepare: async (server) => {
        await createTask(server, 'per-caller');
        return {};
      },
    },
  ),
  call(
    'a task while the task store is full',
    ROW.storeFull,
    'wait_for_cancel',
    {},
    {
      pair: 'limits',
      fast: false,
      capabilities: TASKS,
      headers: { 'x-user': 'newcomer' },
      // The previous case's task and this one fill the store.
      prepare: async (server) => {
        await createTask(server, 'filler');
        return {};
      },
    },
  ),

  call(
    'a task-creating call over tasks.maxCallBytes',
    ROW.callTooLarge,
    'wait_for_cancel',
    { blob: 'x'.repeat(300_000) },
    { pair: 'limits', fast: false, capabilities: TASKS, headers: { 'x-user': 'big-call' } },
  ),
  {
    label: 'a task-creating call with 1e400 in its arguments',
    row: ROW.hugeNumberTask,
    fast: false,
    pair: 'limits',
    request: (id) => ({
      headers: { ...rpcHeaders('tools/call', 'wait_for_cancel'), 'x-user': 'huge-number' },
      body: rpcBody('tools/call', tool('wait_for_cancel', { n: '@x' }), id, TASKS).replace(
        '"@x"',
        '1e400',
      ),
    }),
  },
  {
    label: 'a framework-state call with a 400-digit integer in its arguments',
    row: ROW.hugeNumberState,
    fast: true,
    request: (id) => ({
      headers: rpcHeaders('tools/call', 'fixture_probe'),
      body: rpcBody('tools/call', tool('fixture_probe', { n: '@x' }), id, FORM).replace(
        '"@x"',
        '9'.repeat(400),
      ),
    }),
  },

  // What an operation throws: a tool, a prompt and a resource for each kind.
  ...THROWN_KINDS.flatMap((kind) => [
    call(`a tool throws (${kind})`, THROWN_ROWS[kind], 'throws', { kind }),
    rpc(`a prompt throws (${kind})`, THROWN_ROWS[kind], 'prompts/get', {
      name: 'throws',
      arguments: { kind },
    }),
    rpc(`a resource throws (${kind})`, THROWN_ROWS[kind], 'resources/read', {
      uri: `throws://${kind}`,
    }),
  ]),
  call(
    'a guard refuses a signed-in caller: hidden',
    ROW.hidden,
    'create_ticket',
    { title: 'x', priority: 'low' },
    { headers: { Authorization: 'Bearer bob' } },
  ),
  call('a role-guarded tool, nobody signed in', ROW.unauthorized, 'create_ticket', {
    title: 'x',
    priority: 'low',
  }),
  call('a scoped tool, nobody signed in', ROW.unauthorized, 'scoped'),
  call(
    'a scoped tool, a token without the scope',
    ROW.scopes,
    'scoped',
    {},
    {
      headers: { 'x-diff-scope': 'other' },
    },
  ),
  call(
    'a scoped tool, a token with it',
    SERVED,
    'scoped',
    {},
    {
      headers: { 'x-diff-scope': 'diff:write' },
    },
  ),
  rpc(
    'tools/list with a scoped tool hidden',
    SERVED,
    'tools/list',
    {},
    {
      headers: { Authorization: 'Bearer bob' },
    },
  ),
  call('UnauthorizedException with a detailed message', ROW.unauthorized, 'locked'),
  call('NotFoundException from a tool', ROW.other4xx, 'find_item'),
  rpc('NotFoundException from a prompt', ROW.other4xx, 'prompts/get', { name: 'missing_draft' }),
  call('a thrown string', ROW.bug, 'throw_value'),
  call(
    'an invalid input request built in the handler',
    ROW.bug,
    'fixture_secret_form',
    { field: 'password' },
    { capabilities: FORM },
  ),
  call('a DTO argument out of range', ROW.invalidArguments, 'count_to', { count: 11 }),
  call(
    'a DTO argument of the wrong type',
    ROW.invalidArguments,
    'transfer_funds',
    { amount: '', to: 'bob' },
    { capabilities: FORM },
  ),
  call(
    'arguments breaking a JSON Schema 2020-12',
    ROW.invalidArguments,
    'json_schema_2020_12_tool',
    { name: 5 },
  ),
  rpc('a prompt without a required argument', ROW.invalidArguments, 'prompts/get', {
    name: 'test_prompt_with_arguments',
    arguments: { arg1: 'a' },
  }),

  // Input requests.
  call('a REQUIRED capability missing', ROW.required, 'test_missing_capability'),
  call('two REQUIRED capabilities missing', ROW.required, 'fixture_url_and_roots'),
  call(
    'a REQUIRED capability missing on a retry',
    ROW.required,
    'url_login',
    {},
    { capabilities: FORM, inputResponses: { login: { action: 'accept' } } },
  ),
  rpc('REQUIRED sampling missing (prompts/get)', ROW.required, 'prompts/get', {
    name: 'fixture_sampled_prompt',
  }),
  call(
    'CONDITIONAL form missing when emitted',
    ROW.conditional,
    'fixture_conditional_form',
    {},
    { capabilities: { sampling: {} } },
  ),
  rpc(
    'CONDITIONAL roots missing when emitted (resources/read)',
    ROW.conditional,
    'resources/read',
    { uri: 'fixture://workspace' },
    { capabilities: FORM },
  ),
  call(
    'an undeclared input request type',
    ROW.undeclared,
    'fixture_undeclared_sampling',
    {},
    { capabilities: { sampling: {}, elicitation: {} } },
  ),
  call(
    'a replay handler asking an undeclared type',
    ROW.undeclared,
    'replay_undeclared',
    {},
    { capabilities: EVERYTHING },
  ),
  ...[null, [{ action: 'accept' }], 'accept', 5].map((inputResponses) =>
    call(
      `inputResponses ${JSON.stringify(inputResponses)}`,
      ROW.responsesNotObject,
      'test_input_required_result_elicitation',
      {},
      { capabilities: FORM, params: { inputResponses } },
    ),
  ),
  call(
    'an input response of no known shape',
    ROW.responseShape,
    'test_input_required_result_elicitation',
    {},
    { capabilities: FORM, inputResponses: { user_name: 12345 } },
  ),
  retry(
    'an answer of another kind than asked',
    ROW.responseShape,
    'transfer_funds',
    TRANSFER,
    (server) => firstRound(server, 'transfer_funds', TRANSFER),
    { approval: { roots: [] } },
  ),
  call(
    'accepted content failing find(key, Dto)',
    ROW.typedAnswer,
    'fixture_typed_answer',
    {},
    {
      capabilities: FORM,
      inputResponses: { order: { action: 'accept', content: { amount: 'lots', quantity: 11 } } },
    },
  ),

  // Framework-protected state refused, for each way it can be wrong.
  retry(
    'state: malformed',
    ROW.frameworkState,
    'fixture_probe',
    {},
    async () => 'not-a-sealed-state',
    GO,
  ),
  retry(
    'state: altered in one byte',
    ROW.frameworkState,
    'fixture_probe',
    {},
    async (server) => flipMiddle(await firstRound(server, 'fixture_probe')),
    GO,
  ),
  retry(
    'state: naming an unknown key',
    ROW.frameworkState,
    'fixture_probe',
    {},
    async (server) => otherKeyId(await firstRound(server, 'fixture_probe')),
    GO,
  ),
  retry(
    'state: expired',
    ROW.frameworkState,
    'fixture_probe',
    {},
    (_server, helpers) => firstRound(helpers.shortLived, 'fixture_probe'),
    GO,
  ),
  retry(
    'state: for other arguments',
    ROW.frameworkState,
    'transfer_funds',
    { ...TRANSFER, amount: '99.00' },
    (server) => firstRound(server, 'transfer_funds', TRANSFER),
    APPROVE,
  ),
  retry(
    'state: for another tool',
    ROW.frameworkState,
    'transfer_funds',
    TRANSFER,
    (server) => firstRound(server, 'fixture_probe'),
    APPROVE,
  ),
  rpc(
    'state: for a prompt of the same name',
    ROW.frameworkState,
    'prompts/get',
    { name: 'fixture_same_name' },
    {
      capabilities: FORM,
      prepare: async (server) => ({
        requestState: await firstRound(server, 'fixture_same_name'),
        inputResponses: GO,
      }),
    },
  ),
  retry(
    'state: under the id that emitted it',
    ROW.frameworkState,
    'fixture_probe',
    {},
    (server, _helpers, id) => firstRound(server, 'fixture_probe', {}, { id }),
    GO,
  ),
  retry(
    'state: over maxEncodedBytes',
    ROW.maxEncodedBytes,
    'fixture_probe',
    {},
    async () => 'x'.repeat(65_537),
    GO,
  ),
  retry(
    'state: expired (maxLifetimeMs)',
    ROW.maxLifetime,
    'transfer_funds',
    TRANSFER,
    (_server, helpers) => firstRound(helpers.shortLived, 'transfer_funds', TRANSFER),
    APPROVE,
  ),
  retry(
    'state: round 3 at maxRounds 2',
    ROW.maxRounds,
    'collect_rounds',
    { rounds: 5 },
    (_server, helpers) => collectState(helpers.manyRounds, 5, 2),
    { 'step-3': { action: 'accept', content: { value: 'v3' } } },
  ),
  retry(
    'a 3rd state to emit at maxRounds 2',
    ROW.outgoing,
    'collect_rounds',
    { rounds: 5 },
    (server) => collectState(server, 5, 1),
    { 'step-2': { action: 'accept', content: { value: 'v2' } } },
  ),
  {
    label: 'state sealed for a 5,000-character string id',
    row: ROW.idLength,
    fast: true,
    request: () =>
      rpcRequest('tools/call', tool('transfer_funds', TRANSFER), `id-${'i'.repeat(5_000)}`, {
        capabilities: FORM,
      }),
  },
  call(
    'an outgoing state over maxDecodedBytes',
    ROW.maxDecodedBytes,
    'fixture_probe',
    { pad: 70_000 },
    { capabilities: FORM },
  ),
  call(
    'an outgoing state of another mode than declared',
    ROW.outgoing,
    'fixture_wrong_mode',
    {},
    { capabilities: FORM },
  ),
  call(
    'an outgoing application state over 65,536 bytes',
    ROW.outgoing,
    'fixture_app_state',
    { state: 'x', repeat: 65_537 },
    { capabilities: FORM },
  ),

  // Replay.
  retry(
    'a replay handler asking another question at an answered slot',
    ROW.replayQuestion,
    'replay_shifty',
    {},
    (server) => firstRound(server, 'replay_shifty'),
    { 'ask-1': { action: 'accept', content: { confirm: true } } },
  ),
  retry(
    'replay answers too large to carry on',
    ROW.replayTooLarge,
    'replay_together',
    {},
    (server) => firstRound(server, 'replay_together', {}, { capabilities: EVERYTHING }),
    { 'ask-1': { action: 'accept', content: { name: 'x'.repeat(60_000) } } },
    EVERYTHING,
  ),
  call(
    'ctx.elicit() without replay: true',
    ROW.notReplay,
    'not_replay',
    {},
    { capabilities: FORM },
  ),

  // Application state and state handles.
  ...[
    ['application state empty', ROW.appState, ''],
    ['application state over 65,536 bytes', ROW.appState, 'x'.repeat(65_537)],
    ['application state of 65,538 UTF-8 bytes', ROW.appStateLimit, 'é'.repeat(32_769)],
  ].map(([label, row, requestState]) =>
    call(
      label,
      row,
      'fixture_app_state',
      { state: 'a' },
      { capabilities: FORM, requestState, inputResponses: GO },
    ),
  ),
  call(
    'a malformed state handle',
    ROW.handle,
    'handle_approve',
    { amount: '1.00' },
    { capabilities: FORM, requestState: 'not-a-handle', inputResponses: APPROVE },
  ),
  retry(
    'a state handle presented twice',
    ROW.handle,
    'handle_approve',
    { amount: '1.00' },
    async (server) => {
      const state = await firstRound(server, 'handle_approve', { amount: '1.00' });
      const done = await rawToolCall(
        server.url,
        'handle_approve',
        { amount: '1.00' },
        { capabilities: FORM, requestState: state, inputResponses: APPROVE },
      );
      expect(done.body.result).toMatchObject({ resultType: 'complete' });
      return state;
    },
    APPROVE,
  ),
  call(
    'a handle saved by a framework-protected operation',
    ROW.handleStore,
    'handle_framework_confused',
    {},
    { capabilities: FORM },
  ),
  // The limits pair holds one handle of at most 1,024 bytes: first too large a one, then one too many.
  call(
    'handle data over maxHandleDataBytes',
    ROW.maxHandleData,
    'handle_approve',
    { amount: '1.00', note: 'n'.repeat(2_000) },
    { pair: 'limits', capabilities: FORM },
  ),
  call(
    'a new flow while the handle store is full',
    ROW.maxStateHandles,
    'handle_approve',
    { amount: '2.00' },
    {
      pair: 'limits',
      capabilities: FORM,
      prepare: async (server) => {
        await firstRound(server, 'handle_approve', { amount: '1.00' });
        return {};
      },
    },
  ),

  // A requestState that is not a string: the SDK's answer, on every path.
  ...(
    [
      ['42, framework-protected tool', 'fixture_probe', 42],
      ['42, tool without request state', 'fixture_no_state', 42],
      ['42, application-protected tool', 'fixture_app_state', 42],
      ['42, plain tool', 'test_simple_text', 42],
      ['null', 'fixture_probe', null],
      ['true', 'fixture_probe', true],
      ['an object', 'fixture_probe', { state: 'x' }],
      ['an array', 'fixture_probe', ['x']],
    ] as const
  ).map(([how, name, requestState]) =>
    call(
      `requestState ${how}`,
      ROW.nonStringState,
      name,
      { state: 'a' },
      { capabilities: FORM, params: { requestState }, fast: false },
    ),
  ),
  rpc(
    'requestState 42, prompts/get',
    ROW.nonStringState,
    'prompts/get',
    { name: 'test_simple_prompt' },
    { params: { requestState: 42 }, fast: false },
  ),
  rpc(
    'requestState 42, resources/read',
    ROW.nonStringState,
    'resources/read',
    { uri: 'test://static-text' },
    { params: { requestState: 42 }, fast: false },
  ),

  // Last: it spends the in-flight budget for a moment.
  raw(
    'a 4 MiB body while 32 MiB of them are in flight',
    ROW.inFlight,
    (id) => ({ headers: SIMPLE_TEXT_HEADERS, body: padded(4 * MiB, id) }),
    overInFlightBudget,
  ),
];

/** Creates a never-ending task for `user` on the limits pair. */
async function createTask(server: TestServer, user: string): Promise<void> {
  const created = await rawToolCall(
    server.url,
    'wait_for_cancel',
    {},
    {
      capabilities: TASKS,
      headers: { 'x-user': user },
    },
  );
  expect(created.body.result).toMatchObject({ resultType: 'task' });
}

/**
 * Rows no request to a hot method reaches, and why. Every other row must have a case above.
 */
const NOT_HOT: Record<string, string> = {
  'State handle repository unreachable':
    'a Redis outage, answered by the runner on both paths (test/e2e/redis/redis-outages.load.e2e-spec.ts)',
  'A request on a keep-alive connection opened before the instance':
    'answered before routing, whatever the method (test/e2e/sample/sample-drain.load.e2e-spec.ts)',
  'A session request (`initialize`, `POST`, `GET`, `DELETE`) your global guards refuse':
    '2025-era sessions only (test/session-owners.e2e-spec.ts)',
  '`initialize` whose declarations': '2025-era initialize only (test/session-owners.e2e-spec.ts)',
  'A session write (a subscription, the log level)':
    '2025-era sessions only (src/ext/sessions/mcp-sessions.service.spec.ts)',
  'Removed or unknown method': 'not a hot method',
  'Any of the four above for an operation a [`visibleTo`]':
    'runtime operations only; compared byte for byte with the fast path on and off (test/e2e/operations/runtime-operations.e2e-spec.ts)',
  'A call the `strict` [audit trail]':
    'refused by the call-started guard in the Nest pipeline both paths run (test/e2e/ext/audit/audit-policies.e2e-spec.ts)',
  '`GET` or `DELETE` on the endpoint': 'no JSON-RPC request at all',
  '`completion/complete` for an unknown prompt': 'completion/complete is not a hot method',
  '`tasks/*` naming a task': 'tasks/* only',
  '`Mcp-Name` missing or not `params.taskId`': 'tasks/* only',
  '`tasks/update` without': 'tasks/update only',
  '`tasks/update` with a malformed answer': 'tasks/update only',
  '`tasks/update` whose answers': 'tasks/update only',
  '`tasks/result`, `tasks/list`': 'not served',
  '`subscriptions/listen` with `notifications.taskIds`': 'subscriptions/listen only',
  'A completer that throws': 'completion/complete only',
  'State issue time in the future':
    'only a sealing key can make one; the framework-state row is covered by its other reasons',
  '`listen.': 'subscriptions/listen only',
  'Backlog of a `subscriptions/listen` stream':
    'a listen stream whose client stops reading: test/e2e/wire/listen-limits.e2e-spec.ts',
  "Backlog of a 2025-era session's `GET` stream":
    'a GET: test/e2e/ext/sessions/session-stream-backlog.e2e-spec.ts',
  'Backlog of the SSE answer to a 2025-era `POST`':
    'a 2025-era session: test/e2e/ext/sessions/session-stream-backlog.e2e-spec.ts',
  // A 2025-era session's own rows: the same session endpoint serves them whether the fast path is on
  // or off (it takes only 2026-07-28 requests); test/e2e/ext/sessions/session-clients.e2e-spec.ts covers them.
  '`initialize` that is not': 'initialize is not a hot method',
  '`initialize` past `sessions.maxSessionsPerCaller`': 'initialize is not a hot method',
  '`initialize` past `sessions.maxSessions` unexpired': 'initialize is not a hot method',
  'A JSON-RPC batch (an array body), on 2026-07-28':
    'no single hot method: test/e2e/transport/batches.e2e-spec.ts, every member kind, both eras and adapters',
  'A JSON-RPC batch (an array body) — whatever':
    'a 2025-era session: test/e2e/transport/batches.e2e-spec.ts',
  'A second `GET` stream': 'no JSON-RPC request at all',
  '`GET` whose `Accept`': 'no JSON-RPC request at all',
  '2025-era traffic with `sessions.enabled: false`': 'a module option the corpus apps keep on',
  'A method a session does not serve': 'not a hot method',
  '`resources/subscribe` past': 'resources/subscribe only',
  'The client did not answer a server-to-client request':
    'a 2025-era session: test/e2e/ext/sessions/session-clients.e2e-spec.ts',
  'A call still returning `input_required` after':
    'a 2025-era session: test/e2e/ext/sessions/session-clients.e2e-spec.ts',
  'The client answered a server-to-client request':
    'a 2025-era session: test/e2e/ext/sessions/session-clients.e2e-spec.ts',
  'The client resumed': 'a GET: test/e2e/ext/sessions/session-fleet.load.e2e-spec.ts',
  'A call that would have more than `sessions.maxPendingRequests`':
    'a 2025-era session: test/e2e/ext/sessions/session-clients.e2e-spec.ts',
  'A 2025-era `tools/call` of a':
    'a 2025-era session: test/e2e/ext/sessions/session-clients.e2e-spec.ts',
  '`params.task` on a tool':
    'a 2025-era session: test/e2e/ext/sessions/session-clients.e2e-spec.ts',
  'With `auth.resourceServer`: a bearer token':
    'needs an authorization server: test/e2e/auth/oauth-resource-server.e2e-spec.ts runs it on both paths',
  'With `auth.resourceServer` and DPoP':
    'needs an authorization server: test/e2e/auth/dpop.e2e-spec.ts runs it on both paths',
  'With DPoP: a DPoP-bound token':
    'needs an authorization server: test/e2e/auth/dpop.e2e-spec.ts runs it on both paths',
  'With DPoP nonces': 'needs an authorization server: test/e2e/auth/dpop.e2e-spec.ts',
  'With DPoP: a valid proof whose `jti` cannot be recorded':
    'needs an authorization server and Redis: test/e2e/auth/dpop-fleet.load.e2e-spec.ts',
  "A rate limit's refusal with `rateLimits.errors: '-32029'`":
    'the `ThrottlerException` row; test/e2e/auth/rate-limits.e2e-spec.ts runs it on both paths',
  "A rate limit's refusal with `rateLimits.errors: 'sep-3304'`":
    'an option the corpus apps leave at its default: test/e2e/auth/rate-limits.e2e-spec.ts runs it on both paths',
  'With `auth.resourceServer`, the token cannot be checked':
    'needs an authorization server that does not answer: src/auth/jwt-access-token.verifier.spec.ts',
  '`skills/get` of a URI': 'skills methods are not hot: test/e2e/ext/skills/skills.e2e-spec.ts',
  '`resources/directory/read` of a URI':
    'skills methods are not hot: test/e2e/ext/skills/sample-skills.e2e-spec.ts',
  '`skills/list` with a `cursor`':
    'skills methods are not hot: test/e2e/ext/skills/skills.e2e-spec.ts',
  '`skills/list`, `skills/get` or':
    'an option the corpus apps leave off; skill-startup.e2e-spec.ts',
  '`resources/read` of a skill file whose answer (over 64 KiB)':
    'needs answers held in flight: test/e2e/ext/skills/skill-reads.serial.e2e-spec.ts runs it on both paths',
  '`resources/read` of a skill file whose answer would take every caller':
    'needs answers held in flight: test/e2e/ext/skills/skill-reads.serial.e2e-spec.ts runs it on both paths',
  'A skill that breaks a rule':
    'at startup, not a request: test/e2e/ext/skills/skill-startup.e2e-spec.ts',
  '`InvalidModuleOptionsError`': 'at startup, not a request',
  '`DuplicateOperationError`': 'at startup, not a request',
  '`InvalidOperationDefinitionError`': 'at startup, not a request',
};

const FRAMING = new Set([
  'date',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
]);

/**
 * The answer, byte for byte, with what is random by design or depends on the time replaced (sealed
 * state, task ids, timestamps, retry hints), and its headers but framing and date.
 */
function comparable(exchange: Exchange): unknown {
  const text = exchange.text
    .replace(/"requestState":"[^"]*"/g, '"requestState":"<sealed>"')
    .replace(/"taskId":"[^"]+"/g, '"taskId":"<task id>"')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z/g, '<time>')
    // Counted down from the first expiry, so two servers never give the same.
    .replace(/"retryAfterMs":\d+/g, '"retryAfterMs":<ms>');
  const headers = Object.fromEntries(
    Object.entries(exchange.headers).filter(([name]) => !FRAMING.has(name)),
  );
  return { status: exchange.status, headers, text };
}

/** The limits pair: small task and state-handle stores, to reach their rows. */
function limitsApp(keys: { active: string; keys: Record<string, string> }, fastPath: boolean) {
  return tasksApp({
    keyring: { active: keys.active, keys: { ...keys.keys } },
    lists: { pageSize: 2 },
    requestState: { maxStateHandles: 1, maxHandleDataBytes: 1_024 },
    tasks: { store: new MemoryTaskStore({ maxTasks: 2 }), maxTasksPerCaller: 1 },
    http: { fastPath },
  });
}

describe.each(ALL_ADAPTERS)('fast path against the SDK path over %s', (adapter: AdapterName) => {
  const keyring = newKeyring(['k1']);
  const fixtures = [
    InputRequestFixturesModule,
    RequestStateFixturesModule,
    ErrorMappingModule,
    ReplayFixturesModule,
    StateHandleFixturesModule,
    DifferentialFixturesModule,
  ];
  const pairs = {} as Record<'sample' | 'limits', { fast: TestServer; sdk: TestServer }>;
  let helpers: Helpers;

  beforeAll(async () => {
    const sample = (env: SampleEnv) =>
      startSampleApp(adapter, { MCP_KEYRING: keyring.json, ...env }, { extraImports: fixtures });
    const limits = (fastPath: boolean) =>
      startTestServer(adapter, {
        imports: [limitsApp(keyring, fastPath), StateHandleFixturesModule],
      });
    pairs.sample = { fast: await sample(ENV), sdk: await sample({ ...ENV, MCP_FAST_PATH: 'off' }) };
    pairs.limits = { fast: await limits(true), sdk: await limits(false) };
    helpers = {
      manyRounds: await sample({}),
      shortLived: await sample({ MCP_STATE_MAX_LIFETIME_MS: '1' }),
    };
  });

  afterAll(async () => {
    for (const pair of Object.values(pairs)) {
      await pair?.fast?.close();
      await pair?.sdk?.close();
    }
    await helpers?.manyRounds?.close();
    await helpers?.shortLived?.close();
  });

  const sendTo = (server: TestServer, request: HttpRequest) =>
    httpPost(server.url, request.headers, request.body);

  it.each(CORPUS.map((testCase, index) => [testCase.label, testCase, index] as const))(
    '%s',
    async (_label, testCase, index) => {
      const pair = pairs[testCase.pair ?? 'sample'];
      const id = 100 + index;
      const requestTo = async (server: TestServer) =>
        testCase.request(id, (await testCase.prepare?.(server, helpers, id)) ?? {});
      const [toFast, toSdk] = await Promise.all([requestTo(pair.fast), requestTo(pair.sdk)]);
      const send = testCase.send ?? sendTo;
      // Counted from here: the preparations may have used the fast path.
      const served = jest.spyOn(McpFastPath.prototype, 'serve');
      try {
        let viaFast: Exchange;
        let viaSdk: Exchange;
        if (testCase.fast) {
          viaFast = await send(pair.fast, toFast);
          expect({ servedByTheFastPath: served.mock.calls.length }).toEqual({
            servedByTheFastPath: 1,
          });
          viaSdk = await send(pair.sdk, toSdk);
        } else {
          // Neither path may be the fast one: both are sent at once.
          [viaFast, viaSdk] = await Promise.all([send(pair.fast, toFast), send(pair.sdk, toSdk)]);
        }
        expect({ servedByTheFastPath: served.mock.calls.length }).toEqual({
          servedByTheFastPath: testCase.fast ? 1 : 0,
        });
        expect(comparable(viaFast)).toEqual(comparable(viaSdk));
      } finally {
        served.mockRestore();
      }
    },
  );
});

describe('the corpus against docs/errors.md', () => {
  /**
   * The first cell of every row of every table in the document but the first: "Server busy: try
   * again" indexes the busy causes of the whole page. Its outage rows are proven by their own suites
   * (test/e2e/redis/redis-outages.load.e2e-spec.ts, key-sources, oauth-outage): the operation runner
   * answers them, the same on both paths; the others are rows of the sections below.
   */
  const errorsPage = readFileSync(join(__dirname, '../../../docs/errors.md'), 'utf8');
  const rows = errorsPage
    .slice(errorsPage.indexOf('\n## Before the request reaches the SDK'))
    .split('\n')
    .filter((line) => line.startsWith('| ') && !/^\|\s*-/.test(line))
    .map((line) => line.split(' | ')[0].slice(2).trim())
    .filter((cell) => !['Situation', 'Thrown', 'Limit', 'Error'].includes(cell));
  const matching = (prefix: string) => rows.filter((row) => row.startsWith(prefix));

  it('has a case for every row a request to a hot method can reach, and names why for the others', () => {
    const uncovered = rows.filter(
      (row) =>
        !CORPUS.some((testCase) => testCase.row !== undefined && row.startsWith(testCase.row)) &&
        !Object.keys(NOT_HOT).some((prefix) => row.startsWith(prefix)),
    );
    expect(uncovered).toEqual([]);
  });

  it('names each row unambiguously', () => {
    const prefixes = [...new Set(CORPUS.flatMap((testCase) => testCase.row ?? []))];
    expect(prefixes.filter((prefix) => matching(prefix).length !== 1)).toEqual([]);
    expect(
      Object.keys(NOT_HOT).filter(
        (prefix) => prefix !== '`listen.' && matching(prefix).length !== 1,
      ),
    ).toEqual([]);
  });
});
