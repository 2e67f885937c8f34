import * as sdk from '@modelcontextprotocol/server';
import { ModernRequestClassifier, type InboundPost } from './modern-request.classifier';
import { seededRandom } from '../../kit/seeded-random.spec-helper';

type Sdk = typeof import('@modelcontextprotocol/server');
const actual = jest.requireActual<Sdk>('@modelcontextprotocol/server');
// Counted, not changed: how often the classifier asks the SDK.
jest.mock('@modelcontextprotocol/server', () => {
  const real = jest.requireActual<Sdk>('@modelcontextprotocol/server');
  return { ...real, classifyInboundRequest: jest.fn(real.classifyInboundRequest) };
});
const classify = sdk.classifyInboundRequest as jest.MockedFunction<Sdk['classifyInboundRequest']>;

/*
 * Differential: on a generated corpus of bodies and headers, the classifier's decision is the
 * SDK's `classifyInboundRequest` "modern request" decision, whether or not it has remembered an
 * envelope — one classifier sees the whole corpus, in several orders, so that a remembered
 * verdict is reused on every body that may share it.
 */

const VERSION = '2026-07-28';
const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const INFO = 'io.modelcontextprotocol/clientInfo';
const LEVEL = 'io.modelcontextprotocol/logLevel';
const RELATED = 'io.modelcontextprotocol/related-task';
/** Absent member. */
const NONE = Symbol('none');
/** Stands for a number a double cannot hold (JSON.parse makes it Infinity). */
const HUGE = '@huge';

const IDS: unknown[] = [
  1,
  0,
  -1,
  1.5,
  -0.5,
  2 ** 53,
  2 ** 53 - 1,
  -(2 ** 53 - 1),
  1e300,
  HUGE,
  'x',
  '',
  'ü✓',
  null,
  true,
  {},
  [],
  NONE,
];
const METHODS: unknown[] = [
  'tools/call',
  'tools/list',
  'prompts/get',
  'resources/read',
  'initialize',
  'ping',
  ' tools/call',
  'tools/call\t',
  '',
  7,
  NONE,
];
const CAPABILITIES: unknown[] = [
  {},
  { elicitation: { form: {} } },
  { elicitation: { form: {}, url: {} }, sampling: { tools: {} }, roots: {} },
  { roots: { listChanged: true } },
  { roots: { listChanged: 'yes' } },
  { sampling: 5 },
  { sampling: { context: 'x' } },
  { elicitation: 'form' },
  { elicitation: { form: 1 } },
  { extensions: { 'io.modelcontextprotocol/tasks': {} } },
  { extensions: { a: 1 } },
  { extensions: { a: { b: null } } },
  { extensions: { a: { b: HUGE } } },
  { experimental: { x: { y: [1, 'z', { w: false }] } } },
  { experimental: 'x' },
  { tasks: { list: {} } },
  { unknownCapability: { anything: 1 } },
  { ключ: { значение: '✓' } },
  [],
  null,
  'caps',
  NONE,
];
const CLIENT_INFOS: unknown[] = [
  NONE,
  { name: 'diff', version: '1.0.0' },
  { name: 'diff' },
  { version: '1' },
  { name: 1, version: '1' },
  { name: 'é', version: '1', title: '✓ client', websiteUrl: 'https://example.com' },
  { name: 'a', version: '1', icons: [{ src: 'https://example.com/i.png' }] },
  { name: 'a', version: '1', icons: [{ src: 1 }] },
  { name: 'a', version: '1', icons: 'x' },
  { name: 'a', version: '1', extra: { deep: [null] } },
  'diff',
  null,
  [],
];
const VERSIONS: unknown[] = [VERSION, '2025-11-25', '2099-01-01', 20260728, null, NONE];
const EXTRA_META: Record<string, unknown>[] = [
  {},
  { progressToken: 'p' },
  { progressToken: 3 },
  { progressToken: 1.5 },
  { progressToken: null },
  { [LEVEL]: 'info' },
  { [LEVEL]: 'loud' },
  { [RELATED]: { taskId: 't' } },
  { [RELATED]: { taskId: 1 } },
  { 'example.com/trace': { id: 'abc' } },
  { 'io.modelcontextprotocol/other': 1 },
];
const TOP_EXTRAS: Record<string, unknown>[] = [
  {},
  { result: {} },
  { result: { content: [] } },
  { error: { code: 1, message: 'x' } },
  { error: 'x' },
  { extra: 1 },
  { result: undefined },
];
const JSONRPC: unknown[] = ['2.0', '1.0', 2, NONE];
const PARAMS_SHAPES = ['object', 'no-meta', 'meta-not-object', 'not-object', 'absent'] as const;
const HEADER_VERSIONS: (string | undefined)[] = [VERSION, undefined, '2025-11-25', ` ${VERSION} `];
const HEADER_METHODS = ['same', 'absent', 'other', 'padded'] as const;

interface Choice {
  jsonrpc: unknown;
  id: unknown;
  method: unknown;
  version: unknown;
  capabilities: unknown;
  clientInfo: unknown;
  extraMeta: Record<string, unknown>;
  topExtra: Record<string, unknown>;
  params: (typeof PARAMS_SHAPES)[number];
  headerVersion: string | undefined;
  headerMethod: (typeof HEADER_METHODS)[number];
}

const BASE: Choice = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  version: VERSION,
  capabilities: {},
  clientInfo: { name: 'diff', version: '1.0.0' },
  extraMeta: {},
  topExtra: {},
  params: 'object',
  headerVersion: VERSION,
  headerMethod: 'same',
};

function set(target: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== NONE) target[key] = value;
}

/** The body as the module's parser hands it over (`JSON.parse` of the text). */
function postOf(choice: Choice): InboundPost {
  const meta: Record<string, unknown> = {};
  set(meta, PV, choice.version);
  set(meta, CAPS, choice.capabilities);
  set(meta, INFO, choice.clientInfo);
  Object.assign(meta, choice.extraMeta);
  const params: Record<string, unknown> = { name: 'echo', arguments: { text: 'hi' } };
  if (choice.params === 'object') params._meta = meta;
  if (choice.params === 'meta-not-object') params._meta = 'meta';
  const body: Record<string, unknown> = {};
  set(body, 'jsonrpc', choice.jsonrpc);
  set(body, 'id', choice.id);
  set(body, 'method', choice.method);
  if (choice.params === 'not-object') body.params = 'params';
  else if (choice.params !== 'absent') body.params = params;
  Object.assign(body, choice.topExtra);
  const text = JSON.stringify(body).replaceAll(`"${HUGE}"`, '1e400');
  const method = typeof choice.method === 'string' ? choice.method : 'tools/call';
  const mcpMethodHeader = {
    same: method,
    absent: undefined,
    other: 'prompts/get',
    padded: ` ${method}\t`,
  }[choice.headerMethod];
  return {
    protocolVersionHeader: choice.headerVersion,
    mcpMethodHeader,
    mcpNameHeader: 'echo',
    body: JSON.parse(text) as unknown,
  };
}

function sdkSaysModernRequest(post: InboundPost): boolean {
  const route = actual.classifyInboundRequest({ httpMethod: 'POST', ...post });
  return route.kind === 'modern' && route.messageKind === 'request';
}

const pick = <T>(next: () => number, values: readonly T[]): T =>
  values[Math.floor(next() * values.length)];

/** Every single change from the base, then `count` random mixes. */
function corpus(count: number, seed: number): Choice[] {
  const dimensions: { [K in keyof Choice]: readonly Choice[K][] } = {
    jsonrpc: JSONRPC,
    id: IDS,
    method: METHODS,
    version: VERSIONS,
    capabilities: CAPABILITIES,
    clientInfo: CLIENT_INFOS,
    extraMeta: EXTRA_META,
    topExtra: TOP_EXTRAS,
    params: PARAMS_SHAPES,
    headerVersion: HEADER_VERSIONS,
    headerMethod: HEADER_METHODS,
  };
  const choices: Choice[] = [];
  for (const [key, values] of Object.entries(dimensions))
    for (const value of values) choices.push({ ...BASE, [key]: value });
  const next = seededRandom(seed);
  for (let i = 0; i < count; i++) {
    const choice = { ...BASE };
    // Mostly well-formed, with a few dimensions changed, so that most mixes reach the envelope.
    for (const [key, values] of Object.entries(dimensions))
      if (next() < 0.25) (choice as Record<string, unknown>)[key] = pick(next, values);
    choices.push(choice);
  }
  return choices;
}

describe('ModernRequestClassifier', () => {
  beforeEach(() => classify.mockClear());

  it.each([1, 2, 3])(
    'decides as the SDK classifier on every body of a generated corpus (seed %d)',
    (seed) => {
      const cases = corpus(1_500, seed).map(postOf);
      const classifier = new ModernRequestClassifier();
      const disagreements: unknown[] = [];
      // Twice: the second pass meets every envelope remembered.
      for (const post of [...cases, ...cases.slice().reverse()]) {
        const expected = sdkSaysModernRequest(post);
        if (classifier.isModernRequest(post) !== expected)
          disagreements.push({ post: JSON.stringify(post), expected });
      }
      expect(disagreements).toEqual([]);
      // The corpus reaches both answers, plenty of each.
      const modern = cases.filter(sdkSaysModernRequest).length;
      expect(modern).toBeGreaterThan(100);
      expect(cases.length - modern).toBeGreaterThan(100);
    },
  );

  it('asks the SDK once for a client that sends the same envelope on every call', () => {
    const classifier = new ModernRequestClassifier();
    const answers = [1, 2, 3, 4, 5].map((id) =>
      classifier.isModernRequest(postOf({ ...BASE, id })),
    );
    expect(answers).toEqual([true, true, true, true, true]);
    expect(classify).toHaveBeenCalledTimes(1);
  });

  it('remembers a refused envelope as refused', () => {
    const classifier = new ModernRequestClassifier();
    const bad = { ...BASE, capabilities: { roots: { listChanged: 'yes' } } };
    expect([1, 2].map((id) => classifier.isModernRequest(postOf({ ...bad, id })))).toEqual([
      false,
      false,
    ]);
    expect(classify).toHaveBeenCalledTimes(1);
  });

  it('asks the SDK every time about what it may decide on other grounds', () => {
    const classifier = new ModernRequestClassifier();
    const unusual: Choice[] = [
      { ...BASE, topExtra: { result: {} } },
      { ...BASE, extraMeta: { progressToken: 'p' } },
      { ...BASE, extraMeta: { [LEVEL]: 'info' } },
      { ...BASE, extraMeta: { [RELATED]: { taskId: 't' } } },
      { ...BASE, capabilities: { extensions: { a: { b: HUGE } } } },
      { ...BASE, headerMethod: 'absent' },
      { ...BASE, method: 'initialize' },
    ];
    for (const choice of [...unusual, ...unusual]) classifier.isModernRequest(postOf(choice));
    expect(classify).toHaveBeenCalledTimes(unusual.length * 2);
  });

  it('remembers a bounded number of envelopes and keeps answering past it', () => {
    const classifier = new ModernRequestClassifier();
    const many = Array.from({ length: 1_000 }, (_, index) => ({
      ...BASE,
      clientInfo: { name: `client-${index}`, version: '1' },
    }));
    for (const choice of many) expect(classifier.isModernRequest(postOf(choice))).toBe(true);
    // The first ones were forgotten (asked again), the last ones remembered.
    classifier.isModernRequest(postOf(many[0]));
    classifier.isModernRequest(postOf(many[many.length - 1]));
    expect(classify).toHaveBeenCalledTimes(many.length + 1);
    const envelopes = (classifier as unknown as { envelopes: Map<string, boolean> }).envelopes;
    expect(envelopes.size).toBeLessThanOrEqual(128);
  });
  it('decides on what a request sent, not on what an operation later made of an earlier one', () => {
    const classifier = new ModernRequestClassifier();
    const first = postOf({ ...BASE, id: 1 });
    expect(classifier.isModernRequest(first)).toBe(true);
    // An operation changes the capabilities it was handed into ones the SDK refuses…
    const meta = (first.body as { params: { _meta: Record<string, Record<string, unknown>> } })
      .params._meta;
    meta[CAPS].roots = { listChanged: 'yes' };
    // …and a request that sends those is still refused, as the SDK refuses it.
    const bad = postOf({
      ...BASE,
      id: 2,
      capabilities: { roots: { listChanged: 'yes' } },
    });
    expect(sdkSaysModernRequest(bad)).toBe(false);
    expect(classifier.isModernRequest(bad)).toBe(false);
  });
});
