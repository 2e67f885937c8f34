import type { Type } from '@nestjs/common';
import type { McpOperationKind } from '../../input/mcp-operation-kind';
import type { JsonSchemaObject } from '../../kit/json-schema-object';
import type { MaybePromise } from '../../kit/maybe-promise';
import type { McpStandardSchema } from './standard-schema';

/** The outcome of validating one call's arguments. @internal */
export type ArgumentsValidation = { ok: true; value: unknown } | { ok: false; errors: string[] };

/**
 * Validates the arguments of one operation against what the operation advertises: synchronously,
 * unless a Standard Schema validator with asynchronous rules answers later.
 * @internal
 */
export interface ArgumentsValidator {
  /**
   * `value` is what the handler should receive: the DTO instance (unknown properties stripped) for a
   * DTO, the arguments unchanged for a raw schema. `errors` are readable messages, at most
   * {@link MAX_REPORTED_ERRORS} of them plus a last line saying that more were left out.
   */
  validate(args: Readonly<Record<string, unknown>>): MaybePromise<ArgumentsValidation>;
}

/** A validator whose answer is always at hand (class-validator DTOs, JSON Schema). @internal */
export interface SyncArgumentsValidator extends ArgumentsValidator {
  validate(args: Readonly<Record<string, unknown>>): ArgumentsValidation;
}

/**
 * What an operation advertises about its arguments, as its decorator and method declare it.
 * @internal
 */
export interface ArgumentsValidatorSource {
  kind: McpOperationKind;
  /** The `input` option (a class-validator DTO or a Standard Schema); wins over `argsType`. */
  input?: Type<unknown> | McpStandardSchema;
  /** The declared type of the whole-arguments `@McpArgs()` parameter, when it is a class. */
  argsType?: Type<unknown>;
  /** The raw `inputSchema` option of a tool, as the user wrote it; wins over any DTO. */
  inputSchema?: JsonSchemaObject;
}

/** How many validation messages a failure reports at most. @internal */
export const MAX_REPORTED_ERRORS = 20;
