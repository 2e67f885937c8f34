import { validateFormSchema } from './form-schema.validator';
import { InvalidInputRequestError } from './invalid-input-request.error';
import { ConceptSecretFieldPolicy, type SecretFieldPolicy } from './secret-field.policy';

const secrets = new ConceptSecretFieldPolicy();

function form(
  properties: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { type: 'object', properties, ...extra };
}

function refusal(schema: unknown, policy: SecretFieldPolicy = secrets): string {
  try {
    validateFormSchema(schema, policy);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputRequestError);
    return (error as Error).message;
  }
  throw new Error('expected the schema to be refused');
}

describe('validateFormSchema', () => {
  describe('accepts the flat shapes MCP allows', () => {
    it.each([
      ['a plain string', { type: 'string' }],
      [
        'a string with title, description and default',
        { type: 'string', title: 'Name', description: 'Your name', default: 'Ada' },
      ],
      ['a string with length bounds', { type: 'string', minLength: 0, maxLength: 100 }],
      ...['email', 'uri', 'date', 'date-time'].map(
        (format) =>
          [`a string with format ${format}`, { type: 'string', format }] as [string, unknown],
      ),
      ['a number with bounds', { type: 'number', minimum: 0.5, maximum: 99.5, default: 1 }],
      ['an integer with bounds', { type: 'integer', minimum: -10, maximum: 10 }],
      ['a boolean', { type: 'boolean', default: false }],
      ['a string enum', { type: 'string', enum: ['red', 'green'], default: 'red' }],
      [
        'a string enum with enumNames',
        { type: 'string', enum: ['r', 'g'], enumNames: ['Red', 'Green'] },
      ],
      [
        'a titled single-select (oneOf const/title)',
        { type: 'string', oneOf: [{ const: 'r', title: 'Red' }, { const: 'g' }] },
      ],
      [
        'a multi-select with items enum',
        {
          type: 'array',
          items: { type: 'string', enum: ['a', 'b'] },
          minItems: 1,
          maxItems: 2,
          default: ['a'],
        },
      ],
      [
        'a multi-select with items anyOf',
        {
          type: 'array',
          items: {
            anyOf: [
              { const: 'a', title: 'A' },
              { const: 'b', title: 'B' },
            ],
          },
        },
      ],
      [
        'a multi-select with an empty default',
        { type: 'array', items: { type: 'string', enum: ['a'] }, default: [] },
      ],
    ])('%s', (_, property) => {
      expect(() => validateFormSchema(form({ field: property }), secrets)).not.toThrow();
    });

    it('a schema with several properties, required names and $schema', () => {
      const schema = form(
        {
          name: { type: 'string' },
          age: { type: 'integer', minimum: 0 },
          subscribe: { type: 'boolean' },
        },
        { required: ['name', 'age'], $schema: 'https://json-schema.org/draft/2020-12/schema' },
      );
      expect(() => validateFormSchema(schema, secrets)).not.toThrow();
    });

    it('an empty form', () => {
      expect(() => validateFormSchema(form({}), secrets)).not.toThrow();
    });
  });

  describe('refuses other shapes', () => {
    it.each([
      ['a non-object schema', 'string'],
      ['null', null],
      ['an array', []],
      ['a schema that is not type object', { type: 'string' }],
      ['missing properties', { type: 'object' }],
      ['properties as an array', { type: 'object', properties: [] }],
      ['an unknown top-level keyword', form({}, { additionalProperties: false })],
    ])('%s', (_, schema) => {
      refusal(schema);
    });

    it.each([
      ['a nested object', { type: 'object', properties: { street: { type: 'string' } } }],
      ['an array of numbers', { type: 'array', items: { type: 'number', enum: [1, 2] } }],
      ['an array of free strings', { type: 'array', items: { type: 'string' } }],
      ['an array without items', { type: 'array' }],
      [
        'an items enum with extra keywords',
        { type: 'array', items: { type: 'string', enum: ['a'], pattern: 'a' } },
      ],
      ['a property without type', { title: 'x' }],
      ['a type list', { type: ['string', 'null'] }],
      ['type null', { type: 'null' }],
      ['a $ref', { $ref: '#/definitions/x' }],
      ['a property that is not an object', 'string'],
      ['pattern on a string', { type: 'string', pattern: '^a' }],
      ['an unknown keyword on a number', { type: 'number', multipleOf: 2 }],
      ['minLength on a number', { type: 'number', minLength: 1 }],
      ['an unknown keyword on a boolean', { type: 'boolean', const: true }],
      ['an unsupported string format', { type: 'string', format: 'hostname' }],
      ['negative maxLength', { type: 'string', maxLength: -1 }],
      ['fractional minLength', { type: 'string', minLength: 1.5 }],
      ['a number minimum given as text', { type: 'number', minimum: '0' }],
      ['an empty enum', { type: 'string', enum: [] }],
      ['a numeric enum', { type: 'string', enum: [1, 2] }],
      ['oneOf without const', { type: 'string', oneOf: [{ title: 'x' }] }],
      [
        'oneOf with extra keywords',
        { type: 'string', oneOf: [{ const: 'a', title: 'A', description: 'd' }] },
      ],
      ['a string default that is a number', { type: 'string', default: 1 }],
      ['a boolean default that is a string', { type: 'boolean', default: 'true' }],
      [
        'a multi-select default with a number',
        { type: 'array', items: { type: 'string', enum: ['a'] }, default: [1] },
      ],
      ['a non-string title', { type: 'string', title: 7 }],
    ])('a property with %s', (_, property) => {
      expect(refusal(form({ field: property }))).toContain('property "field"');
    });

    it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])(
      'a property whose type is the inherited name %p, with an InvalidInputRequestError rather than a TypeError',
      (type) => {
        refusal(form({ field: { type } }));
      },
    );

    it('required naming an undeclared property', () => {
      expect(
        refusal(form({ name: { type: 'string' } }, { required: ['name', 'nickname'] })),
      ).toContain('"required"');
    });

    it('required that is not a list of strings', () => {
      refusal(form({ name: { type: 'string' } }, { required: 'name' }));
      refusal(form({ name: { type: 'string' } }, { required: [1] }));
    });
  });

  describe('refuses secret-bearing fields', () => {
    it.each([
      ['password', {}],
      ['passwd', {}],
      ['apiKey', {}],
      ['api_key', {}],
      ['accessToken', {}],
      ['creditCardNumber', {}],
      ['cvv', {}],
      ['otp', {}],
      ['verificationCode', {}],
      ['field', { title: 'API token' }],
      ['field', { description: 'Your password for the bank' }],
    ])('%p %p, naming the concept and pointing to URL elicitation', (name, extra) => {
      const message = refusal(form({ [name]: { type: 'string', ...extra } }));
      expect(message).toContain(`"${name}"`);
      expect(message).toMatch(/password|API key or token|payment card|verification code/);
      expect(message).toContain('URL elicitation');
    });

    it('refuses format "password" (not an allowed format in the first place)', () => {
      refusal(form({ answer: { type: 'string', format: 'password' } }));
    });

    it('checks secrets on every property type, not only strings', () => {
      refusal(form({ pinCode: { type: 'integer' } }));
      refusal(form({ cvv: { type: 'number' } }));
    });

    it('uses the policy it is given', () => {
      const strict: SecretFieldPolicy = {
        secretConcept: ({ name }) => (name === 'favouriteColour' ? 'colour' : undefined),
      };
      expect(refusal(form({ favouriteColour: { type: 'string' } }), strict)).toContain('colour');
      expect(() =>
        validateFormSchema(form({ password: { type: 'string' } }), strict),
      ).not.toThrow();
    });

    it('passes the policy the name, title, description and format of each field', () => {
      const seen: unknown[] = [];
      validateFormSchema(
        form({ a: { type: 'string', title: 'T', description: 'D', format: 'email' } }),
        {
          secretConcept: (field) => {
            seen.push(field);
            return undefined;
          },
        },
      );
      expect(seen).toEqual([
        expect.objectContaining({ name: 'a', title: 'T', description: 'D', format: 'email' }),
      ]);
    });
  });
});
