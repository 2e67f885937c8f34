import type { Type } from '@nestjs/common';
import type { Prompt, PromptArgument, Resource, Tool } from '@modelcontextprotocol/server';
import type { ResourceTemplateListing } from './operation-entry.interface';
import { InvalidOperationDefinitionError } from '../../kit/errors/invalid-operation-definition.error';
import type { JsonSchemaObject } from '../../kit/json-schema-object';
import type {
  McpPromptOptions,
  McpResourceOptions,
  McpToolOptions,
} from '../decorators/mcp-operation-options.interface';
import { dtoToJsonSchema } from '../../pipeline/validation/dto-json-schema';
import {
  isStandardSchema,
  type McpStandardSchema,
} from '../../pipeline/validation/standard-schema';
import { standardSchemaToJsonSchema } from '../../pipeline/validation/standard-schema-arguments.validator';

/** The JSON Schema of what `input` describes: a DTO's, or what a Standard Schema says it is. @internal */
export function inputJsonSchema(
  site: string,
  input: Type<unknown> | McpStandardSchema,
): JsonSchemaObject {
  return isStandardSchema(input) ? standardSchemaToJsonSchema(input, site) : dtoToJsonSchema(input);
}

const TOOL_NAME = /^[A-Za-z0-9_./-]{1,64}$/;

function withOptional<T extends object>(base: T, extras: Record<string, unknown>): T {
  for (const [key, value] of Object.entries(extras)) {
    if (value !== undefined) (base as Record<string, unknown>)[key] = value;
  }
  return base;
}

function requireDescription(site: string, description: string | undefined): void {
  if (typeof description !== 'string' || description.trim() === '') {
    throw new InvalidOperationDefinitionError(site, 'a non-empty "description" is required');
  }
}

/**
 * The `tools/list` entry of a tool. `argsType` is the `@McpArgs()` parameter type, if any.
 * @internal
 */
export function toolListing(
  site: string,
  name: string,
  options: McpToolOptions,
  argsType: Type<unknown> | undefined,
): Tool {
  if (!TOOL_NAME.test(name)) {
    throw new InvalidOperationDefinitionError(
      site,
      `tool name "${name}" must be 1-64 characters of A-Z a-z 0-9 _ . / -`,
    );
  }
  requireDescription(site, options.description);
  const inputSchema = resolveInputSchema(site, options, argsType);
  return withOptional({ name, description: options.description, inputSchema } as Tool, {
    title: options.title,
    outputSchema: options.outputSchema,
    annotations: options.annotations,
    _meta: options._meta,
  });
}

function resolveInputSchema(
  site: string,
  options: McpToolOptions,
  argsType: Type<unknown> | undefined,
): Tool['inputSchema'] {
  let schema: JsonSchemaObject;
  if (options.inputSchema) schema = options.inputSchema;
  else if (options.input) schema = inputJsonSchema(site, options.input);
  else if (argsType) schema = dtoToJsonSchema(argsType);
  else schema = { type: 'object', properties: {} };
  if (schema.type !== 'object') {
    throw new InvalidOperationDefinitionError(site, 'inputSchema must have type "object"');
  }
  return schema as Tool['inputSchema'];
}

/** The `prompts/list` entry of a prompt. @internal */
export function promptListing(
  site: string,
  name: string,
  options: McpPromptOptions,
  argsType: Type<unknown> | undefined,
): Prompt {
  requireDescription(site, options.description);
  const input = options.input ?? argsType;
  const argumentsList =
    options.arguments ?? (input ? argumentsFromSchema(inputJsonSchema(site, input)) : []);
  return withOptional({ name, description: options.description } as Prompt, {
    title: options.title,
    arguments: argumentsList.length > 0 ? argumentsList : undefined,
    _meta: options._meta,
  });
}

function argumentsFromSchema(schema: JsonSchemaObject): PromptArgument[] {
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const properties = (schema.properties ?? {}) as Record<string, { description?: string }>;
  return Object.entries(properties).map(([argName, property]) =>
    withOptional({ name: argName, required: required.has(argName) } as PromptArgument, {
      description: property.description,
    }),
  );
}

/** The `resources/list` or `resources/templates/list` entry of a resource. @internal */
export function resourceListing(
  site: string,
  name: string,
  options: McpResourceOptions,
): Resource | ResourceTemplateListing {
  if ((options.uri === undefined) === (options.uriTemplate === undefined)) {
    throw new InvalidOperationDefinitionError(site, 'give exactly one of "uri" or "uriTemplate"');
  }
  const extras = {
    title: options.title,
    description: options.description,
    mimeType: options.mimeType,
    annotations: options.annotations,
    _meta: options._meta,
  };
  if (options.uri !== undefined) {
    return withOptional({ uri: options.uri, name } as Resource, { ...extras, size: options.size });
  }
  return withOptional(
    { uriTemplate: options.uriTemplate, name } as ResourceTemplateListing,
    extras,
  );
}
