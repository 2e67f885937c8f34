import { clip } from '../../kit/clip';
import type { ValidationError } from 'class-validator';
import type { ErrorObject } from 'ajv';
import { MAX_REPORTED_ERRORS } from './arguments-validator.interface';

/**
 * The last message of a list that was cut short (the wording of Nest's `ValidationPipe`).
 * @internal
 */
export const OMITTED_ERRORS_MESSAGE = 'Further validation errors were omitted';

const MAX_MESSAGE_LENGTH = 256;

/**
 * The messages of class-validator errors, flattened the way Nest's `ValidationPipe` flattens them:
 * nested messages are prefixed with their parent path (`child.prop must be a string`), children
 * come before the constraints of their own parent, and a parent's constraints are dropped at the
 * top level when it has children.
 * @internal
 */
export function* classValidatorMessages(errors: Iterable<ValidationError>): Generator<string> {
  for (const error of errors) {
    if (error.children && error.children.length > 0) yield* nestedMessages(error, error.property);
    else yield* Object.values(error.constraints ?? {});
  }
}

function* nestedMessages(parent: ValidationError, path: string): Generator<string> {
  for (const child of parent.children ?? []) {
    if (child.children && child.children.length > 0) {
      yield* nestedMessages(child, `${path}.${child.property}`);
    }
    for (const message of Object.values(child.constraints ?? {})) yield `${path}.${message}`;
  }
}

/**
 * Messages of ajv errors: the instance path, if any, then ajv's message (`/title must be string`).
 * @internal
 */
export function* ajvMessages(errors: Iterable<ErrorObject>): Generator<string> {
  for (const error of errors) {
    const path = error.instancePath === '' ? '' : `${error.instancePath} `;
    yield readable(`${path}${error.message ?? `must pass "${error.keyword}"`}${detail(error)}`);
  }
}

function detail(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') return `: '${String(params.additionalProperty)}'`;
  if (error.keyword === 'unevaluatedProperties') return `: '${String(params.unevaluatedProperty)}'`;
  return '';
}

// Property names in ajv's messages come from the client: keep them short and on one line.
/** A message bounded in length and free of control characters. @internal */
export function readable(message: string): string {
  return clip(message, MAX_MESSAGE_LENGTH);
}

/**
 * The first {@link MAX_REPORTED_ERRORS} messages, then {@link OMITTED_ERRORS_MESSAGE} if more came.
 * @internal
 */
export function cappedMessages(messages: Iterable<string>): string[] {
  const kept: string[] = [];
  for (const message of messages) {
    if (kept.length === MAX_REPORTED_ERRORS) return [...kept, OMITTED_ERRORS_MESSAGE];
    kept.push(message);
  }
  return kept;
}
