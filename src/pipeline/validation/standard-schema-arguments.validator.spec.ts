import { InvalidOperationDefinitionError } from '../../kit/errors/invalid-operation-definition.error';
import { isStandardSchema, type McpStandardSchema } from './standard-schema';
import {
  createStandardSchemaArgumentsValidator,
  standardSchemaToJsonSchema,
} from './standard-schema-arguments.validator';
import { MAX_REPORTED_ERRORS } from './arguments-validator.interface';
import { OMITTED_ERRORS_MESSAGE } from './validation-messages';

function schema(
  validate: McpStandardSchema['~standard']['validate'],
  jsonSchema?: McpStandardSchema['~standard']['jsonSchema'],
): McpStandardSchema {
  return { '~standard': { version: 1, vendor: 'test', validate, jsonSchema } };
}

describe('Standard Schema arguments', () => {
  it('tells a Standard Schema from a class or a plain object', () => {
    expect(isStandardSchema(schema(() => ({ value: 1 })))).toBe(true);
    expect(isStandardSchema(class Dto {})).toBe(false);
    expect(isStandardSchema({ '~standard': { version: 2, validate: () => undefined } })).toBe(
      false,
    );
    expect(isStandardSchema(null)).toBe(false);
  });

  it('passes the schema output on, and maps issues to path: message', async () => {
    const validator = createStandardSchemaArgumentsValidator(
      schema((value) =>
        (value as { ok?: boolean }).ok
          ? { value: { ok: true, added: 1 } }
          : { issues: [{ message: 'must be ok', path: ['ok'] }, { message: 'whole object' }] },
      ),
    );
    expect(await validator.validate({ ok: true })).toEqual({
      ok: true,
      value: { ok: true, added: 1 },
    });
    expect(await validator.validate({})).toEqual({
      ok: false,
      errors: ['ok: must be ok', 'whole object'],
    });
  });

  it('waits for an asynchronous schema, reads path segments with keys, and caps the messages', async () => {
    const many = Array.from({ length: MAX_REPORTED_ERRORS + 5 }, (_, index) => ({
      message: 'bad',
      path: [{ key: 'items' }, index],
    }));
    const validator = createStandardSchemaArgumentsValidator(
      schema(async () => ({ issues: many })),
    );
    const outcome = await validator.validate({});
    expect(outcome.ok).toBe(false);
    const errors = (outcome as { errors: string[] }).errors;
    expect(errors).toHaveLength(MAX_REPORTED_ERRORS + 1);
    expect(errors[0]).toBe('items.0: bad');
    expect(errors[MAX_REPORTED_ERRORS]).toBe(OMITTED_ERRORS_MESSAGE);
  });

  it('fails startup for a schema that cannot describe itself, or describes no object', () => {
    expect(() =>
      standardSchemaToJsonSchema(
        schema(() => ({ value: 1 })),
        'Tools.run()',
      ),
    ).toThrow(InvalidOperationDefinitionError);
    expect(() =>
      standardSchemaToJsonSchema(
        schema(() => ({ value: 1 }), { input: () => ({ type: 'string' }) }),
        'Tools.run()',
      ),
    ).toThrow(/must describe an object/);
    expect(
      standardSchemaToJsonSchema(
        schema(() => ({ value: 1 }), { input: () => ({ type: 'object', properties: {} }) }),
        'Tools.run()',
      ),
    ).toEqual({ type: 'object', properties: {} });
  });
});
