import type { CanActivate, ExecutionContext } from '@nestjs/common';
import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../kit/errors/mcp-error-codes';
import type {
  ArgumentsValidation,
  ArgumentsValidator,
} from './validation/arguments-validator.interface';
import { andThen, type MaybePromise } from '../kit/maybe-promise';
import { LibraryInterceptor, refusal } from './library-interceptor';
import { operationCallOf, type OperationCall } from './operation-call';

/**
 * Validates an operation's arguments against what it advertises, after the application's guards
 * and interceptors and before the module's interceptors, the pipes and the method: invalid
 * arguments get -32602 with `data.errors` (the messages `ValidationPipe` would give); valid ones
 * are recorded as validated (a DTO instance with unknown properties stripped), which is what the
 * pipes and the method receive.
 * @internal
 */
export function validateCallArguments(
  call: OperationCall,
  validator: ArgumentsValidator,
): MaybePromise<void> {
  return andThen(validator.validate(call.args), (outcome) => record(call, outcome));
}

/** Validates the call's arguments when its operation advertises a schema or DTO. @internal */
export function validateAdvertisedArguments(call: OperationCall): MaybePromise<void> {
  const validator = call.profile.argumentsValidator;
  return validator ? validateCallArguments(call, validator) : undefined;
}

/**
 * Argument validation as the module's one interceptor of an operation that declares no input or
 * state, when the application applies interceptors to it (one that declares input or state has its
 * arguments validated by capability gating, first): after the application's guards and
 * interceptors, before the pipes and the method.
 * @internal
 */
export class ArgumentsValidationInterceptor extends LibraryInterceptor {
  around(call: OperationCall, proceed: () => Promise<unknown>): MaybePromise<unknown> {
    return andThen(validateAdvertisedArguments(call), proceed);
  }
}

function record(call: OperationCall, outcome: ArgumentsValidation): void {
  if (!outcome.ok) {
    throw refusal(
      call,
      new ProtocolError(
        McpErrorCode.InvalidParams,
        `Invalid params: ${outcome.errors.join('; ')}`,
        {
          errors: outcome.errors,
        },
      ),
    );
  }
  call.recordValidatedArgs(outcome.value as Record<string, unknown>);
}

/**
 * Argument validation as the last guard of an operation that declares no input or state and to
 * which the application applies no interceptor: the same place in the pipeline (after the
 * application's guards, before the pipes and the method) without entering Nest's interceptor
 * chain, whose every link costs every call (`npm run bench:http`).
 * @internal
 */
export class ArgumentsValidationGuard implements CanActivate {
  canActivate(context: ExecutionContext): MaybePromise<boolean> {
    const call = operationCallOf(context.getArgs());
    if (call?.purpose !== 'operation') return true;
    return andThen(validateAdvertisedArguments(call), () => true);
  }
}
