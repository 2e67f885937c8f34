import Ajv, { type Options } from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { InvalidOperationDefinitionError } from '../../kit/errors/invalid-operation-definition.error';
import type { JsonSchemaObject } from '../../kit/json-schema-object';
import type { SyncArgumentsValidator } from './arguments-validator.interface';
import { STRING_LENGTH_KEYWORDS } from './string-length.keywords';
import { ajvMessages, cappedMessages } from './validation-messages';

const AJV_OPTIONS: Options = {
  // Unknown keywords and formats are legal JSON Schema (annotations); only a schema that breaks its
  // meta-schema, or a $ref that resolves nowhere, is refused.
  strict: false,
  logger: false,
  // Stop at the first failing keyword: a hostile payload cannot make the server collect (and
  // send back) one error per array item.
  allErrors: false,
  // Schemas are not registered by $id, so two operations may reuse an $id without clashing.
  addUsedSchema: false,
  // A property named `constructor` or `toString` is present only when the client sent it, not
  // because every object inherits one.
  ownProperties: true,
};

/** `$schema` values served, without a trailing `#`. A schema without `$schema` is 2020-12. */
const DIALECTS: Record<string, () => Ajv> = {
  'https://json-schema.org/draft/2020-12/schema': () => new Ajv2020(AJV_OPTIONS),
  'https://json-schema.org/draft/2019-09/schema': () => new Ajv2019(AJV_OPTIONS),
  'http://json-schema.org/draft-07/schema': () => new Ajv(AJV_OPTIONS),
};
const DEFAULT_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

const instances = new Map<string, Ajv>();

function ajvFor(schema: JsonSchemaObject, where: string): Ajv {
  const declared = schema.$schema;
  const dialect = typeof declared === 'string' ? declared.replace(/#$/, '') : DEFAULT_DIALECT;
  const create = DIALECTS[dialect];
  if (declared !== undefined && !create) {
    throw new InvalidOperationDefinitionError(
      where,
      `inputSchema has an unsupported "$schema" ${JSON.stringify(declared)} ` +
        '(JSON Schema 2020-12, 2019-09 and draft-07 are supported)',
    );
  }
  let ajv = instances.get(dialect);
  if (!ajv) {
    ajv = create();
    addFormats(ajv);
    ajv.removeKeyword('maxLength').removeKeyword('minLength').addKeyword(STRING_LENGTH_KEYWORDS);
    instances.set(dialect, ajv);
  }
  return ajv;
}

/** Whether a schema declares a property named `__proto__` anywhere (ajv leaves those unchecked). */
function declaresProtoProperty(schema: unknown, seen = new Set<unknown>()): boolean {
  if (schema === null || typeof schema !== 'object' || seen.has(schema)) return false;
  seen.add(schema);
  const properties = (schema as { properties?: unknown }).properties;
  if (
    properties !== null &&
    typeof properties === 'object' &&
    Object.hasOwn(properties, '__proto__')
  )
    return true;
  return Object.values(schema).some((member) => declaresProtoProperty(member, seen));
}

/**
 * Validates arguments against a raw JSON Schema (2020-12 unless its `$schema` says 2019-09 or
 * draft-07), compiled once, here. Types are checked strictly (no coercion) and formats are
 * asserted. A schema that cannot be compiled throws {@link InvalidOperationDefinitionError}
 * naming `where`.
 * @internal
 */
export function createJsonSchemaArgumentsValidator(
  schema: JsonSchemaObject,
  where: string,
): SyncArgumentsValidator {
  if (schema.$async === true) {
    throw new InvalidOperationDefinitionError(where, 'inputSchema must not be "$async"');
  }
  if (declaresProtoProperty(schema)) {
    throw new InvalidOperationDefinitionError(
      where,
      'inputSchema declares a property named "__proto__", which JSON Schema validators cannot check',
    );
  }
  const ajv = ajvFor(schema, where);
  let check: ReturnType<Ajv['compile']>;
  try {
    check = ajv.compile(schema);
  } catch (error) {
    throw new InvalidOperationDefinitionError(
      where,
      `inputSchema is not a valid JSON Schema: ${(error as Error).message}`,
    );
  }
  return {
    validate(args) {
      return check(args)
        ? { ok: true, value: args }
        : { ok: false, errors: cappedMessages(ajvMessages(check.errors ?? [])) };
    },
  };
}
