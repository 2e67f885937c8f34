import type { Type } from '@nestjs/common';
import type { MetadataStorage } from 'class-transformer/types/MetadataStorage';
import { getMetadataStorage, ValidationTypes } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { targetConstructorToSchema } from 'class-validator-jsonschema';
import type { JsonSchemaObject } from '../../kit/json-schema-object';

const DEFS_PREFIX = '#/$defs/';

// class-transformer keeps its @Type() registry in a module that ships without typings beside it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as {
  defaultMetadataStorage: MetadataStorage;
};

/** Whether class-validator holds any rule for `dto`, its own or inherited. @internal */
export function hasValidationRules(dto: Type<unknown>): boolean {
  return getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false).length > 0;
}

/**
 * Names the nested DTOs of one schema by class identity: two distinct classes sharing a name get
 * `Address` and `Address_2`, where a lookup by name would have merged them into one definition.
 */
class DefinitionNames {
  private readonly names = new Map<Type<unknown>, string>();
  private readonly taken = new Set<string>();
  readonly pending: Type<unknown>[] = [];

  nameOf(dto: Type<unknown>): string {
    let name = this.names.get(dto);
    if (name !== undefined) return name;
    const base = dto.name || 'Anonymous';
    name = base;
    for (let suffix = 2; this.taken.has(name); suffix++) name = `${base}_${suffix}`;
    this.names.set(dto, name);
    this.taken.add(name);
    this.pending.push(dto);
    return name;
  }
}

function designType(meta: ValidationMetadata): unknown {
  const target = meta.target as Type<unknown>;
  return Reflect.getMetadata('design:type', target.prototype as object, meta.propertyName);
}

function typeSchema(type: unknown, names: DefinitionNames): JsonSchemaObject {
  if (type === String || type === Symbol) return { type: 'string' };
  if (type === Number) return { type: 'number' };
  if (type === Boolean) return { type: 'boolean' };
  if (typeof type === 'function' && hasValidationRules(type as Type<unknown>)) {
    return { $ref: DEFS_PREFIX + names.nameOf(type as Type<unknown>) };
  }
  // A class without rules (Date, Array, Object, …) has no definition to point at.
  return {};
}

function converters(names: DefinitionNames) {
  return {
    [ValidationTypes.NESTED_VALIDATION]: (meta: ValidationMetadata) => {
      const declared = designType(meta);
      const typeMetadata = defaultMetadataStorage.findTypeMetadata(
        meta.target as Type<unknown>,
        meta.propertyName,
      );
      const item = typeSchema(typeMetadata ? typeMetadata.typeFunction() : declared, names);
      // With `each`, class-validator-jsonschema wraps the item schema in an array itself.
      return !meta.each && (declared === Array || declared === Set)
        ? { type: 'array', items: item }
        : item;
    },
    [ValidationTypes.CUSTOM_VALIDATION]: (meta: ValidationMetadata) =>
      typeSchema(designType(meta), names),
  };
}

function classSchema(dto: Type<unknown>, names: DefinitionNames): JsonSchemaObject {
  return targetConstructorToSchema(dto, {
    refPointerPrefix: DEFS_PREFIX,
    additionalConverters: converters(names),
  }) as JsonSchemaObject;
}

/**
 * The JSON Schema of a class-validator DTO, as an MCP `inputSchema`: an object schema whose nested
 * DTOs live under `$defs`. A class with no class-validator metadata yields an open object schema.
 * Classes are told apart by identity, so same-named DTOs from different modules keep their own
 * schemas.
 * @internal
 */
export function dtoToJsonSchema(dto: Type<unknown>): JsonSchemaObject {
  if (!hasValidationRules(dto)) return { type: 'object', properties: {} };
  const names = new DefinitionNames();
  const root = classSchema(dto, names);
  const defs: Record<string, JsonSchemaObject> = {};
  for (let index = 0; index < names.pending.length; index++) {
    const nested = names.pending[index];
    defs[names.nameOf(nested)] = classSchema(nested, names);
  }
  return {
    ...root,
    type: 'object',
    properties: root.properties ?? {},
    ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}),
  };
}

/**
 * Whether a parameter type is a user class worth turning into a schema (not a primitive wrapper).
 * @internal
 */
export function isSchemaCandidate(type: unknown): type is Type<unknown> {
  return (
    typeof type === 'function' &&
    ![Object, String, Number, Boolean, Array, Function, Promise].includes(type as never)
  );
}
