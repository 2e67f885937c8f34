import {
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { ProtocolError } from '@modelcontextprotocol/server';
import type { Observable } from 'rxjs';
import { McpErrorCode } from '../errors/mcp-error-codes';
import { operationCallOf } from '../protocol/mcp-operation-call';

/**
 * Validates an operation's arguments against what it advertises, after guards and before the
 * handler and its pipes: invalid arguments get -32602 with `data.errors` (the messages
 * `ValidationPipe` would give), valid ones reach the handler as validated (a DTO instance with
 * unknown properties stripped). A global `ValidationPipe` then sees already valid arguments.
 * @internal
 */
@Injectable()
export class McpArgumentsValidationInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const call = operationCallOf(context.getArgs());
    const validator = call?.profile.argumentsValidator;
    if (!call || call.purpose !== 'operation' || !validator) return next.handle();
    const outcome = validator.validate(call.args);
    if (!outcome.ok) {
      throw new ProtocolError(
        McpErrorCode.InvalidParams,
        `Invalid params: ${outcome.errors.join('; ')}`,
        { errors: outcome.errors },
      );
    }
    call.args = outcome.value as Record<string, unknown>;
    return next.handle();
  }
}
