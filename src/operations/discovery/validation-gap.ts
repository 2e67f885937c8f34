import type { Type } from '@nestjs/common';
import type { McpOperationMetadata } from '../decorators/mcp-operation-options.interface';
import { hasValidationRules, isSchemaCandidate } from '../../pipeline/validation/dto-json-schema';

/** How an operation takes its arguments, as its method's parameters say. @internal */
export interface ArgumentsParameter {
  /** Whether a parameter takes the whole arguments (`@McpArgs()` without a name). */
  readonly whole: boolean;
  /** Its declared type, when the build emitted `design:paramtypes`. */
  readonly declaredType: unknown;
  /** Whether the build emitted `design:paramtypes` for the method at all. */
  readonly typesEmitted: boolean;
}

/**
 * Why an operation that looks like it should be validated is not, in a sentence that names the
 * fix; `undefined` when its arguments are validated (or it advertises nothing to validate them
 * against on purpose: a resource, a raw `inputSchema`, no `@McpArgs()` parameter).
 * @internal
 */
export function validationGap(
  where: string,
  metadata: McpOperationMetadata,
  parameter: ArgumentsParameter,
): string | undefined {
  if (metadata.kind === 'resource' || !parameter.whole) return undefined;
  const options = metadata.options as { input?: Type<unknown>; inputSchema?: object };
  if (options.inputSchema !== undefined) return undefined;
  const dto = options.input ?? parameter.declaredType;
  if (options.input === undefined && !parameter.typesEmitted) {
    return (
      `${where} takes @McpArgs() but the build emitted no parameter types (TypeScript ` +
      '"emitDecoratorMetadata" is off, or an esbuild/tsx/SWC-based build drops it): its arguments are ' +
      'advertised as any object and reach it unvalidated. Turn on "emitDecoratorMetadata" (SWC: ' +
      '"decoratorMetadata": true), or name the DTO with the `input` option.'
    );
  }
  if (isSchemaCandidate(dto) && !hasValidationRules(dto)) {
    return (
      `${where} takes ${dto.name}, which has no class-validator decorators: its arguments are ` +
      'advertised as any object and reach it unvalidated — and behind ' +
      'ValidationPipe({ whitelist: true }) every property is stripped, so the method receives {}. ' +
      `Decorate ${dto.name}'s properties (@IsString(), @IsInt(), …), or give the operation an ` +
      '`inputSchema`.'
    );
  }
  return undefined;
}
