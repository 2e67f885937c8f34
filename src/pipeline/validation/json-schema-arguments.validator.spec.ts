import { InvalidOperationDefinitionError } from '../../kit/errors/invalid-operation-definition.error';
import type { JsonSchemaObject } from '../../kit/json-schema-object';
import { MAX_REPORTED_ERRORS } from './arguments-validator.interface';
import { createJsonSchemaArgumentsValidator } from './json-schema-arguments.validator';
import { OMITTED_ERRORS_MESSAGE } from './validation-messages';
import { thrownBy } from '../../kit/thrown.spec-helper';

const WHERE = 'NoteTools.create()';

const noteSchema: JsonSchemaObject = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 1 },
    body: { type: 'string' },
    pinned: { type: 'boolean' },
    priority: { type: 'integer', minimum: 1 },
    author: { $ref: '#/$defs/person' },
    contact: { type: 'string', format: 'email' },
  },
  required: ['title', 'body'],
  $defs: {
    person: {
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name'],
      additionalProperties: false,
    },
  },
};

function errorsOf(schema: JsonSchemaObject, args: Record<string, unknown>): string[] {
  const outcome = createJsonSchemaArgumentsValidator(schema, WHERE).validate(args);
  if (outcome.ok) throw new Error('expected the arguments to be refused');
  return outcome.errors;
}

function buildError(schema: JsonSchemaObject): InvalidOperationDefinitionError {
  return thrownBy(
    () => createJsonSchemaArgumentsValidator(schema, WHERE),
    InvalidOperationDefinitionError,
  );
}

describe('createJsonSchemaArgumentsValidator', () => {
  it('refuses at startup a schema declaring a "__proto__" property, which would go unchecked', () => {
    const nested = JSON.parse(
      '{"type":"object","properties":{"a":{"type":"object","properties":{"__proto__":{"type":"string"}}}}}',
    ) as JsonSchemaObject;
    expect(buildError(nested).message).toContain('"__proto__"');
  });

  it('answers valid arguments with the arguments themselves', () => {
    const args = { title: 'Hi', body: 'there', author: { name: 'Ada' }, contact: 'a@b.example' };
    const outcome = createJsonSchemaArgumentsValidator(noteSchema, WHERE).validate(args);

    expect(outcome.ok).toBe(true);
    expect((outcome as { value: unknown }).value).toBe(args);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a missing property', { title: 'Hi' }, "must have required property 'body'"],
    [
      'a too short string',
      { title: '', body: 'x' },
      '/title must NOT have fewer than 1 characters',
    ],
    ['a number for a string', { title: 'Hi', body: 5 }, '/body must be string'],
    [
      'a string for a boolean',
      { title: 'Hi', body: 'x', pinned: 'true' },
      '/pinned must be boolean',
    ],
    [
      'a string for an integer',
      { title: 'Hi', body: 'x', priority: '2' },
      '/priority must be integer',
    ],
    [
      'a fraction for an integer',
      { title: 'Hi', body: 'x', priority: 1.5 },
      '/priority must be integer',
    ],
    [
      'a bad format',
      { title: 'Hi', body: 'x', contact: 'nope' },
      '/contact must match format "email"',
    ],
    [
      'a nested object that breaks its $defs schema',
      { title: 'Hi', body: 'x', author: {} },
      "/author must have required property 'name'",
    ],
    [
      'an extra property',
      { title: 'Hi', body: 'x', author: { name: 'A', role: 'admin' } },
      "/author must NOT have additional properties: 'role'",
    ],
  ])('refuses %s, with a readable message', (_case, args, message) => {
    expect(errorsOf(noteSchema, args)).toEqual([message]);
  });

  it('keeps client-chosen property names in messages short and on one line', () => {
    const schema = { type: 'object', additionalProperties: false };
    const [message] = errorsOf(schema, { [`a\nforged log line ${'x'.repeat(1000)}`]: 1 });

    expect(message).not.toContain('\n');
    expect(message.length).toBeLessThanOrEqual(257);
    expect(message.startsWith("must NOT have additional properties: 'a?forged log line")).toBe(
      true,
    );
  });

  it(`reports at most ${MAX_REPORTED_ERRORS} messages, then says more were left out`, () => {
    const schema = {
      type: 'object',
      properties: {
        value: { anyOf: Array.from({ length: 30 }, (_, index) => ({ const: index })) },
      },
    };
    const errors = errorsOf(schema, { value: 'x' });

    expect(errors).toHaveLength(MAX_REPORTED_ERRORS + 1);
    expect(errors[0]).toBe('/value must be equal to constant');
    expect(errors[MAX_REPORTED_ERRORS]).toBe(OMITTED_ERRORS_MESSAGE);
  });

  it('stops at the first failing keyword, whatever the size of the payload', () => {
    const schema = {
      type: 'object',
      properties: { ids: { type: 'array', items: { type: 'integer' } } },
    };
    const ids = Array.from({ length: 10_000 }, () => 'x');

    expect(errorsOf(schema, { ids })).toEqual(['/ids/0 must be integer']);
  });

  it('serves 2020-12 keywords: $defs, $anchor, prefixItems, unevaluatedProperties', () => {
    const schema = {
      type: 'object',
      properties: {
        point: { type: 'array', prefixItems: [{ $ref: '#coordinate' }, { $ref: '#coordinate' }] },
      },
      unevaluatedProperties: false,
      $defs: { coordinate: { $anchor: 'coordinate', type: 'number' } },
    };
    const validator = createJsonSchemaArgumentsValidator(schema, WHERE);

    expect(validator.validate({ point: [1, 2] }).ok).toBe(true);
    expect(errorsOf(schema, { point: [1, 'y'] })).toEqual(['/point/1 must be number']);
    expect(errorsOf(schema, { other: 1 })).toEqual([
      "must NOT have unevaluated properties: 'other'",
    ]);
  });

  it('serves draft-07 and 2019-09 schemas that say so', () => {
    const draft07 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { tags: { type: 'array', items: [{ type: 'string' }] } },
      definitions: {},
    };
    const draft2019 = {
      $schema: 'https://json-schema.org/draft/2019-09/schema',
      type: 'object',
      properties: { n: { type: 'number' } },
    };

    expect(errorsOf(draft07, { tags: [1] })).toEqual(['/tags/0 must be string']);
    expect(errorsOf(draft2019, { n: '1' })).toEqual(['/n must be number']);
  });

  it('lets two operations use the same $id', () => {
    const first = { $id: 'https://example.com/args', type: 'object', required: ['a'] };
    const second = { $id: 'https://example.com/args', type: 'object', required: ['b'] };

    expect(errorsOf(first, {})).toEqual(["must have required property 'a'"]);
    expect(errorsOf(second, {})).toEqual(["must have required property 'b'"]);
  });

  it('accepts unknown keywords and formats, which JSON Schema treats as annotations', () => {
    const schema = {
      type: 'object',
      'x-ui': { widget: 'textarea' },
      properties: { code: { type: 'string', format: 'x-custom' } },
    };
    expect(createJsonSchemaArgumentsValidator(schema, WHERE).validate({ code: '1' }).ok).toBe(true);
  });

  describe('refuses at startup, naming the operation, a schema that cannot be served', () => {
    it.each<[string, JsonSchemaObject, string]>([
      [
        'a negative minLength',
        { type: 'object', properties: { t: { minLength: -1 } } },
        'minLength must be >= 0',
      ],
      ['an unknown type', { type: 'object', properties: { t: { type: 'strin' } } }, 'type must be'],
      [
        'a $ref that resolves nowhere',
        { type: 'object', properties: { t: { $ref: '#/$defs/missing' } } },
        "can't resolve reference #/$defs/missing",
      ],
      [
        'an unsupported dialect',
        { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' },
        'unsupported "$schema"',
      ],
      ['an async schema', { $async: true, type: 'object' }, 'must not be "$async"'],
    ])('%s', (_case, schema, problem) => {
      const error = buildError(schema);
      expect(error.message).toContain(`Invalid MCP operation ${WHERE}: inputSchema`);
      expect(error.message).toContain(problem);
    });
  });

  describe('properties named like Object.prototype members', () => {
    // "__proto__" cannot be declared: ajv would leave it unchecked, so such schemas are refused.
    const names = [...Object.getOwnPropertyNames(Object.prototype), 'prototype'].filter(
      (name) => name !== '__proto__',
    );
    const schemaOf = (name: string, required = false): JsonSchemaObject => ({
      type: 'object',
      properties: Object.fromEntries([[name, { type: 'string' }]]) as Record<string, unknown>,
      ...(required ? { required: [name] } : {}),
    });

    it.each(names)('treats an absent "%s" as absent, not as the inherited member', (name) => {
      expect(createJsonSchemaArgumentsValidator(schemaOf(name), WHERE).validate({}).ok).toBe(true);
      expect(errorsOf(schemaOf(name, true), {})).toEqual([`must have required property '${name}'`]);
    });

    it.each(names)('validates "%s" when the client sends it', (name) => {
      const validator = createJsonSchemaArgumentsValidator(schemaOf(name, true), WHERE);
      expect(validator.validate(Object.fromEntries([[name, 'x']])).ok).toBe(true);
      expect(errorsOf(schemaOf(name, true), Object.fromEntries([[name, 5]]))).toEqual([
        `/${name} must be string`,
      ]);
    });

    it('does not see members inherited from a prototype the client chose', () => {
      const args = Object.create({ title: 'inherited', body: 'inherited' }) as Record<
        string,
        unknown
      >;
      expect(errorsOf(noteSchema, args)).toEqual(["must have required property 'title'"]);
    });
  });
});

describe('maxLength and minLength', () => {
  const schema: JsonSchemaObject = {
    type: 'object',
    properties: { text: { type: 'string', minLength: 2, maxLength: 3 } },
  };
  const validator = createJsonSchemaArgumentsValidator(schema, WHERE);
  const valid = (text: string) => validator.validate({ text }).ok;

  it('count code points, as JSON Schema says: a surrogate pair is one character', () => {
    expect(valid('😀😀😀')).toBe(true); // 6 UTF-16 units, 3 code points
    expect(valid('😀😀😀😀')).toBe(false);
    expect(valid('😀')).toBe(false); // 2 units, 1 code point
    expect(valid('ab')).toBe(true);
    expect(valid('abcd')).toBe(false);
    expect(valid('a')).toBe(false);
  });

  it('give ajv’s messages', () => {
    expect(errorsOf(schema, { text: 'abcd' })).toEqual([
      '/text must NOT have more than 3 characters',
    ]);
    expect(errorsOf(schema, { text: '😀' })).toEqual([
      '/text must NOT have fewer than 2 characters',
    ]);
  });

  it('decide a long string far from the limit without counting it', () => {
    const long = createJsonSchemaArgumentsValidator(
      { type: 'object', properties: { text: { type: 'string', maxLength: 2_000_000 } } },
      WHERE,
    );
    expect(long.validate({ text: 'x'.repeat(1_000_000) }).ok).toBe(true);
    expect(long.validate({ text: '😀'.repeat(1_000_001) }).ok).toBe(true);
    expect(long.validate({ text: '😀'.repeat(2_000_001) }).ok).toBe(false);
  });
});
