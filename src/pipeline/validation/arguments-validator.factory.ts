import { hasValidationRules } from './dto-json-schema';
import type { ArgumentsValidator, ArgumentsValidatorSource } from './arguments-validator.interface';
import { createDtoArgumentsValidator } from './dto-arguments.validator';
import { createJsonSchemaArgumentsValidator } from './json-schema-arguments.validator';
import { isStandardSchema } from './standard-schema';
import { createStandardSchemaArgumentsValidator } from './standard-schema-arguments.validator';

/**
 * Builds, at bootstrap, the validator of one operation's arguments from what it advertises,
 * choosing as the listings do: a tool's raw `inputSchema` wins (validated as JSON Schema); else the
 * Standard Schema validator of `input` (zod 4, valibot, arktype); else the DTO (`input`, then the
 * `@McpArgs()` type) when class-validator has rules for it. Resources, and
 * operations that advertise no rules, get `undefined`: there is nothing to validate.
 *
 * @param where the operation, as `Class.method()`, named by errors about its definition
 * @throws InvalidOperationDefinitionError when a raw `inputSchema` cannot be compiled
 * @internal
 */
export function createArgumentsValidator(
  source: ArgumentsValidatorSource,
  where: string,
): ArgumentsValidator | undefined {
  if (source.kind === 'resource') return undefined;
  if (source.kind === 'tool' && source.inputSchema) {
    return createJsonSchemaArgumentsValidator(source.inputSchema, where);
  }
  if (isStandardSchema(source.input)) return createStandardSchemaArgumentsValidator(source.input);
  const dto = source.input ?? source.argsType;
  return dto && hasValidationRules(dto) ? createDtoArgumentsValidator(dto) : undefined;
}
