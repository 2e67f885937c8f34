import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../errors/mcp-error-codes';
import { operationCallOf } from './mcp-operation-call';

/**
 * Validates an operation's arguments against what it advertises, as the last guard (after the
 * application's guards, before its interceptors, pipes and the handler): invalid arguments get
 * -32602 with `data.errors` (the messages `ValidationPipe` would give), valid ones reach the
 * handler as validated (a DTO instance with unknown properties stripped). A guard rather than an
 * interceptor because Nest's interceptor chain costs every call noticeably more.
 * @internal
 */
@Injectable()
export class McpArgumentsValidationGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const call = operationCallOf(context.getArgs());
    const validator = call?.profile.argumentsValidator;
    if (!call || call.purpose !== 'operation' || !validator) return true;
    const outcome = validator.validate(call.args);
    if (!outcome.ok) {
      throw new ProtocolError(
        McpErrorCode.InvalidParams,
        `Invalid params: ${outcome.errors.join('; ')}`,
        { errors: outcome.errors },
      );
    }
    call.args = outcome.value as Record<string, unknown>;
    return true;
  }
}
