import { specTypeSchemas } from '@modelcontextprotocol/server';
import { paramsSurelyWellFormed } from './request-params.precheck';
import { malformedParamsField } from './request-params.validator';
import { seededRandom } from '../../kit/seeded-random.spec-helper';

/*
 * Differential: whatever the pre-check calls well-formed, the SDK's params schema accepts, on a
 * generated corpus of params for every method the module validates; and the common shapes are
 * recognised, so that the schema only runs when something is off.
 */

const SCHEMAS = {
  'tools/call': 'CallToolRequestParams',
  'prompts/get': 'GetPromptRequestParams',
  'resources/read': 'ReadResourceRequestParams',
  'completion/complete': 'CompleteRequestParams',
  'tools/list': 'PaginatedRequestParams',
  'prompts/list': 'PaginatedRequestParams',
  'resources/list': 'PaginatedRequestParams',
  'resources/templates/list': 'PaginatedRequestParams',
} as const;
type Method = keyof typeof SCHEMAS;
const METHODS = Object.keys(SCHEMAS) as Method[];

const NONE = Symbol('none');
const HUGE = '@huge';

const VALUES: unknown[] = [
  NONE,
  'echo',
  '',
  'ü✓',
  1,
  1.5,
  HUGE,
  null,
  true,
  [],
  ['a'],
  {},
  { text: 'hi' },
  { text: 1 },
  { nested: { deep: [null, 1, 'x'] } },
  { constructor: 'x' },
  { __proto__: 'x' },
];
const METAS: unknown[] = [
  NONE,
  {},
  { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' },
  { progressToken: 'p' },
  { progressToken: 7 },
  { progressToken: 1.5 },
  { progressToken: 2 ** 53 },
  { progressToken: null },
  { 'io.modelcontextprotocol/related-task': { taskId: 't' } },
  { 'io.modelcontextprotocol/related-task': 't' },
  { 'example.com/x': [1] },
  'meta',
  null,
  [],
];
const MEMBERS = ['name', 'uri', 'arguments', 'cursor', 'task', 'ref', 'argument', 'requestState'];

const pick = <T>(next: () => number, values: readonly T[]): T =>
  values[Math.floor(next() * values.length)];

/** Well-formed params of each method, as clients send them. */
const COMMON: Record<Method, Record<string, unknown>> = {
  'tools/call': { name: 'echo', arguments: { text: 'hi', n: 1, list: [1], deep: { a: null } } },
  'prompts/get': { name: 'greet', arguments: { who: 'ü' } },
  'resources/read': { uri: 'test://static-text' },
  'completion/complete': {
    ref: { type: 'ref/prompt', name: 'p' },
    argument: { name: 'a', value: 'b' },
  },
  'tools/list': {},
  'prompts/list': { cursor: 'abc' },
  'resources/list': {},
  'resources/templates/list': { cursor: '' },
};

/** Params as the parser hands them over: `JSON.parse` of their text. */
function parsed(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value).replaceAll(`"${HUGE}"`, '1e400')) as unknown;
}

function corpus(seed: number, count: number): [Method, unknown][] {
  const next = seededRandom(seed);
  const cases: [Method, unknown][] = [];
  for (let i = 0; i < count; i++) {
    const method = pick(next, METHODS);
    const params: Record<string, unknown> = { ...COMMON[method] };
    for (const member of MEMBERS) {
      if (next() < 0.3) {
        const value = pick(next, VALUES);
        if (value === NONE) delete params[member];
        else params[member] = value;
      }
    }
    const meta = pick(next, METAS);
    if (meta !== NONE) params._meta = meta;
    const shape = next();
    // Now and then params that are not an object at all.
    const whole = shape < 0.03 ? pick(next, ['x', 1, null, [], true]) : params;
    cases.push([method, parsed(whole)]);
  }
  return cases;
}

function schemaAccepts(method: Method, params: unknown): boolean {
  const outcome = specTypeSchemas[SCHEMAS[method]]['~standard'].validate(params);
  if (outcome instanceof Promise) throw new Error('asynchronous schema');
  return outcome.issues === undefined;
}

describe('paramsSurelyWellFormed', () => {
  it.each([1, 2, 3])('is never true where the SDK schema refuses (seed %d)', (seed) => {
    const cases = corpus(seed, 4_000);
    const wrong = cases.filter(
      ([method, params]) =>
        paramsSurelyWellFormed(method, params) && !schemaAccepts(method, params),
    );
    // Not vacuous: many are recognised, and many are not.
    const recognised = cases.filter(([method, params]) => paramsSurelyWellFormed(method, params));
    expect(recognised.length).toBeGreaterThan(400);
    expect(cases.length - recognised.length).toBeGreaterThan(400);
    expect(wrong.map(([method, params]) => ({ method, params: JSON.stringify(params) }))).toEqual(
      [],
    );
  });

  it('recognises the shapes well-formed calls have', () => {
    const recognised = METHODS.filter((method) =>
      paramsSurelyWellFormed(method, parsed({ ...COMMON[method], _meta: { progressToken: 1 } })),
    );
    expect(recognised).toEqual(METHODS.filter((method) => method !== 'completion/complete'));
  });

  it('leaves what is off to the schema, which names the field as before', () => {
    expect(malformedParamsField('tools/call', { name: 1 })).toBe('params.name');
    expect(malformedParamsField('tools/call', { name: 'x', arguments: [] })).toBe(
      'params.arguments',
    );
    expect(malformedParamsField('prompts/get', { name: 'x', arguments: { a: 1 } })).toBe(
      'params.arguments.a',
    );
    expect(malformedParamsField('resources/read', {})).toBe('params.uri');
    expect(malformedParamsField('tools/list', { cursor: 3 })).toBe('params.cursor');
    expect(malformedParamsField('tools/call', { name: 'x', _meta: { progressToken: 1.5 } })).toBe(
      'params._meta.progressToken',
    );
    expect(malformedParamsField('tools/call', 'x')).toBe('params');
    expect(malformedParamsField('tools/call', { name: 'x', arguments: { a: 1 } })).toBeUndefined();
  });
});
