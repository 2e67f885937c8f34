import { InvalidOperationDefinitionError } from '../../kit/errors/invalid-operation-definition.error';
import type { JsonSchemaObject } from '../../kit/json-schema-object';
import type { ArgumentsValidation, ArgumentsValidator } from './arguments-validator.interface';
import type { McpStandardSchema, McpStandardSchemaResult } from './standard-schema';
import { cappedMessages, readable } from './validation-messages';

type IssuePath = ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;

function pathText(path: IssuePath): string {
  if (!path || path.length === 0) return '';
  return path
    .map((segment) =>
      String(typeof segment === 'object' && segment !== null ? segment.key : segment),
    )
    .join('.');
}

function outcomeOf(result: McpStandardSchemaResult<unknown>): ArgumentsValidation {
  if (!result.issues) return { ok: true, value: result.value };
  return {
    ok: false,
    errors: cappedMessages(
      (function* () {
        for (const issue of result.issues) {
          const path = pathText(issue.path);
          yield readable(path === '' ? issue.message : `${path}: ${issue.message}`);
        }
      })(),
    ),
  };
}

/**
 * Validates arguments with a Standard Schema validator itself (zod 4, valibot, arktype): its
 * output — transforms and defaults applied — is what the method receives; its issues become the
 * `-32602` `data.errors` (`path: message`, capped like every other validator's).
 * @internal
 */
export function createStandardSchemaArgumentsValidator(
  schema: McpStandardSchema,
): ArgumentsValidator {
  return {
    validate(args) {
      const result = schema['~standard'].validate(args);
      return result instanceof Promise ? result.then(outcomeOf) : outcomeOf(result);
    },
  };
}

/**
 * The JSON Schema (2020-12) a Standard Schema validator produces of its input, to advertise; a
 * validator that cannot describe itself, or describes something other than an object, fails
 * startup naming the operation.
 * @internal
 */
export function standardSchemaToJsonSchema(
  schema: McpStandardSchema,
  where: string,
): JsonSchemaObject {
  const converter = schema['~standard'].jsonSchema;
  if (typeof converter?.input !== 'function') {
    throw new InvalidOperationDefinitionError(
      where,
      `its input, a ${schema['~standard'].vendor} schema, cannot describe itself as JSON Schema ` +
        '(Standard JSON Schema, "~standard.jsonSchema"): use zod 4 or arktype, or wrap a valibot schema ' +
        "with toStandardJsonSchema() from '@valibot/to-json-schema'",
    );
  }
  let json: Record<string, unknown>;
  try {
    json = converter.input({ target: 'draft-2020-12' });
  } catch (error) {
    throw new InvalidOperationDefinitionError(
      where,
      `its ${schema['~standard'].vendor} input schema could not be turned into JSON Schema: ${(error as Error).message}`,
    );
  }
  if (json.type !== 'object')
    throw new InvalidOperationDefinitionError(where, 'its input schema must describe an object');
  return json;
}
