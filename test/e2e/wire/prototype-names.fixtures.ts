import { Injectable, Module } from '@nestjs/common';
import { IsObject, IsOptional, IsString } from 'class-validator';
import { McpArgs, McpResource, McpTool } from '../../../src/index';

/**
 * Every name an object inherits from `Object.prototype`, plus `__proto__` (listed there as an
 * accessor, named again for clarity) and `prototype`: the names a lookup that is not own-property
 * finds without the client having sent them.
 */
export const PROTOTYPE_NAMES: readonly string[] = [
  ...new Set([...Object.getOwnPropertyNames(Object.prototype), '__proto__', 'prototype']),
];

/** An object with exactly these own keys (`__proto__` stays a key, as in parsed JSON). */
export function ownKeys<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
  return Object.fromEntries(entries) as Record<string, T>;
}

/** Optional string properties named after every prototype name; one mirrored in a header. */
const PROTOTYPE_SCHEMA = {
  type: 'object',
  // "__proto__" cannot be declared (startup refuses it); it stays an additional property.
  properties: ownKeys(
    PROTOTYPE_NAMES.filter((name) => name !== '__proto__').map((name) => [
      name,
      name === 'hasOwnProperty'
        ? { type: 'string', 'x-mcp-header': 'HasOwnProperty' }
        : { type: 'string' },
    ]),
  ),
  additionalProperties: false,
};

/** A DTO with an untyped nested object, which class-transformer converts without a `@Type`. */
export class LooseNoteDto {
  @IsString()
  title!: string;

  @IsOptional()
  @IsObject()
  meta?: Record<string, unknown>;
}

/** Operations whose own names are ordinary but whose inputs may carry prototype names. */
@Injectable()
export class PrototypeNameFixtures {
  @McpTool({
    name: 'proto_schema',
    description:
      'Raw JSON Schema whose optional properties are named after Object.prototype members',
    inputSchema: PROTOTYPE_SCHEMA,
  })
  protoSchema(@McpArgs() args: Record<string, unknown>): string {
    return `keys: ${Object.keys(args).sort().join(',')}`;
  }

  @McpTool({ name: 'loose_note', description: 'A DTO tool with an untyped nested object' })
  looseNote(@McpArgs() args: LooseNoteDto): string {
    return `note: ${args.title}`;
  }

  @McpResource({
    uriTemplate: 'proto://items/{id}',
    name: 'proto-item',
    description: 'Any item by id',
    mimeType: 'text/plain',
    complete: { id: (value) => ['alpha', 'beta'].filter((id) => id.startsWith(value)) },
  })
  item(@McpArgs('id') id: string): string {
    return `item ${id}`;
  }
}

@Module({ providers: [PrototypeNameFixtures] })
export class PrototypeNameFixturesModule {}
