import type { Type } from '@nestjs/common';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import type { JsonSchemaObject } from '../interfaces/mcp-operation-options.interface';

const DEFS_PREFIX = '#/$defs/';

function referencedNames(schema: unknown, found: Set<string>): void {
  if (Array.isArray(schema)) {
    schema.forEach((item) => referencedNames(item, found));
    return;
  }
  if (schema === null || typeof schema !== 'object') return;
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith(DEFS_PREFIX)) {
      found.add(value.slice(DEFS_PREFIX.length));
    } else {
      referencedNames(value, found);
    }
  }
}

/**
 * The JSON Schema of a class-validator DTO, as an MCP `inputSchema`: an object schema whose nested
 * DTOs live under `$defs`. A class with no class-validator metadata yields an open object schema.
 */
export function dtoToJsonSchema(dto: Type<unknown>): JsonSchemaObject {
  const schemas = validationMetadatasToSchemas({ refPointerPrefix: DEFS_PREFIX }) as Record<
    string,
    JsonSchemaObject
  >;
  const root = schemas[dto.name];
  if (!root) return { type: 'object', properties: {} };

  const defs: Record<string, JsonSchemaObject> = {};
  const pending = new Set<string>();
  referencedNames(root, pending);
  for (const name of pending) {
    const definition = schemas[name];
    if (!definition || defs[name]) continue;
    defs[name] = definition;
    referencedNames(definition, pending);
  }
  return {
    ...root,
    type: 'object',
    properties: root.properties ?? {},
    ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}),
  };
}

/** Whether a parameter type is a user class worth turning into a schema (not a primitive wrapper). */
export function isSchemaCandidate(type: unknown): type is Type<unknown> {
  return (
    typeof type === 'function' &&
    ![Object, String, Number, Boolean, Array, Function, Promise].includes(type as never)
  );
}
