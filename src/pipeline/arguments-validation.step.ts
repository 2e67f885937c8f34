import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../errors/mcp-error-codes';
import type {
  ArgumentsValidation,
  ArgumentsValidator,
} from '../validation/arguments-validator.interface';
import { andThen, type MaybePromise } from '../util/maybe-promise';
import { LibraryInterceptor, refusal } from './library-interceptor';
import type { OperationCall } from './operation-call';

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

/**
 * Argument validation as the outermost of the module's interceptors (one per operation, holding its
 * validator): after the application's guards and interceptors, before capability gating, state
 * protection, the pipes and the method.
 * @internal
 */
export class ArgumentsValidationInterceptor extends LibraryInterceptor {
  constructor(private readonly validator: ArgumentsValidator) {
    super();
  }

  around(call: OperationCall, proceed: () => Promise<unknown>): MaybePromise<unknown> {
    return andThen(validateCallArguments(call, this.validator), proceed);
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
