import { InvalidInputRequestError } from './invalid-input-request.error';
import type { SecretFieldPolicy } from './secret-field.policy';

type Schema = Record<string, unknown>;

const STRING_FORMATS = new Set(['email', 'uri', 'date', 'date-time']);
const COMMON_KEYS = ['type', 'title', 'description', 'default'];
const ALLOWED_KEYS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  [
    'string',
    new Set([...COMMON_KEYS, 'minLength', 'maxLength', 'format', 'enum', 'enumNames', 'oneOf']),
  ],
  ['number', new Set([...COMMON_KEYS, 'minimum', 'maximum'])],
  ['integer', new Set([...COMMON_KEYS, 'minimum', 'maximum'])],
  ['boolean', new Set(COMMON_KEYS)],
  ['array', new Set([...COMMON_KEYS, 'items', 'minItems', 'maxItems'])],
]);

function isObject(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function fail(path: string, problem: string): never {
  throw new InvalidInputRequestError(`Form elicitation schema ${path}: ${problem}`);
}

function isStringList(value: unknown): value is string[] {
  return (
    Array.isArray(value) && value.length > 0 && value.every((entry) => typeof entry === 'string')
  );
}

function isTitledConstList(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every(
      (entry) =>
        isObject(entry) &&
        typeof entry.const === 'string' &&
        Object.keys(entry).every((k) => k === 'const' || k === 'title'),
    )
  );
}

function checkNonNegativeInteger(path: string, schema: Schema, keys: string[]): void {
  for (const key of keys) {
    if (
      schema[key] !== undefined &&
      !(Number.isInteger(schema[key]) && (schema[key] as number) >= 0)
    ) {
      fail(path, `"${key}" must be a non-negative integer`);
    }
  }
}

function checkProperty(path: string, property: unknown): void {
  if (!isObject(property)) fail(path, 'must be an object');
  const type = property.type;
  // A Map: a type named "constructor" or "__proto__" finds nothing, not an Object.prototype member.
  const allowed = typeof type === 'string' ? ALLOWED_KEYS.get(type) : undefined;
  if (allowed === undefined) {
    fail(
      path,
      'must be a string, number, integer, boolean or string-array property (no nested objects)',
    );
  }
  for (const key of Object.keys(property)) {
    if (!allowed.has(key)) fail(path, `keyword "${key}" is not allowed for type "${type}"`);
  }
  for (const key of ['title', 'description']) {
    if (property[key] !== undefined && typeof property[key] !== 'string')
      fail(path, `"${key}" must be a string`);
  }
  switch (type) {
    case 'string':
      checkNonNegativeInteger(path, property, ['minLength', 'maxLength']);
      if (property.format !== undefined && !STRING_FORMATS.has(property.format as string)) {
        fail(path, `format must be one of ${[...STRING_FORMATS].join(', ')}`);
      }
      if (property.enum !== undefined && !isStringList(property.enum))
        fail(path, '"enum" must be a non-empty list of strings');
      if (property.enumNames !== undefined && !isStringList(property.enumNames))
        fail(path, '"enumNames" must be a list of strings');
      if (property.oneOf !== undefined && !isTitledConstList(property.oneOf))
        fail(path, '"oneOf" must list {const, title} options');
      if (property.default !== undefined && typeof property.default !== 'string')
        fail(path, '"default" must be a string');
      return;
    case 'number':
    case 'integer':
      for (const key of ['minimum', 'maximum', 'default']) {
        if (property[key] !== undefined && typeof property[key] !== 'number')
          fail(path, `"${key}" must be a number`);
      }
      return;
    case 'boolean':
      if (property.default !== undefined && typeof property.default !== 'boolean')
        fail(path, '"default" must be a boolean');
      return;
    case 'array': {
      checkNonNegativeInteger(path, property, ['minItems', 'maxItems']);
      const items = property.items;
      const validItems =
        isObject(items) &&
        ((items.type === 'string' &&
          isStringList(items.enum) &&
          Object.keys(items).every((k) => k === 'type' || k === 'enum')) ||
          (isTitledConstList(items.anyOf) && Object.keys(items).every((k) => k === 'anyOf')));
      if (!validItems)
        fail(
          path,
          'a multi-select needs items {type:"string", enum:[...]} or {anyOf:[{const,title}]}',
        );
      if (
        property.default !== undefined &&
        !isStringList(property.default) &&
        !(Array.isArray(property.default) && property.default.length === 0)
      ) {
        fail(path, '"default" must be a list of strings');
      }
      return;
    }
  }
}

/**
 * Checks that a form elicitation's `requestedSchema` is the flat shape MCP allows (an object of
 * primitive properties) and, with `secrets`, that it asks for no secret, throwing
 * {@link InvalidInputRequestError} otherwise. Without `secrets` only the shape is checked (what a
 * request may be built with); the module checks the secrets with its own policy when the request
 * is emitted.
 * @internal
 */
export function validateFormSchema(schema: unknown, secrets?: SecretFieldPolicy): void {
  if (!isObject(schema) || schema.type !== 'object')
    fail('', 'must be {type: "object", properties: {...}}');
  for (const key of Object.keys(schema)) {
    if (!['type', 'properties', 'required', '$schema'].includes(key))
      fail('', `keyword "${key}" is not allowed at the top level`);
  }
  if (!isObject(schema.properties)) fail('', '"properties" must be an object');
  const names = Object.keys(schema.properties);
  for (const name of names) {
    const property = schema.properties[name];
    // The secret check comes first, so `format: "password"` is explained as a secret, not a bad format.
    const described = isObject(property)
      ? (property as { title?: string; description?: string; format?: string })
      : {};
    // A password field is a secret whatever the policy: the format exists for nothing else.
    const concept =
      described.format === 'password'
        ? 'password'
        : secrets?.secretConcept({
            name,
            title: typeof described.title === 'string' ? described.title : undefined,
            description:
              typeof described.description === 'string' ? described.description : undefined,
            format: typeof described.format === 'string' ? described.format : undefined,
          });
    if (concept) {
      throw new InvalidInputRequestError(
        `Form elicitation property "${name}" asks for a secret (${concept}); never collect secrets in a form — use a URL elicitation (McpInputRequest.elicitUrl) to a page you control instead`,
      );
    }
    checkProperty(`property "${name}"`, property);
  }
  if (schema.required !== undefined) {
    if (
      !Array.isArray(schema.required) ||
      schema.required.some((name) => typeof name !== 'string' || !names.includes(name))
    ) {
      fail('', '"required" must list declared property names');
    }
  }
}
