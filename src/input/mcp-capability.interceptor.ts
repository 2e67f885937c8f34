import {
  Injectable,
  Logger,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import {
  MissingRequiredClientCapabilityError,
  type ClientCapabilities,
} from '@modelcontextprotocol/server';
import { map, type Observable } from 'rxjs';
import { internalError } from '../errors/internal-error';
import { operationCallOf } from '../protocol/mcp-operation-call';
import { undeclaredInputMessage } from './undeclared-input.message';
import { missingCapabilities } from './client-capability-requirements';
import { McpInputRequiredResult } from './mcp-input-required.result';
import { McpInputRequirement } from './mcp-input-requirement.enum';

function describeMissing(required: ClientCapabilities): string {
  return Object.entries(required as Record<string, Record<string, unknown>>)
    .map(([name, sub]) =>
      Object.keys(sub).length > 0
        ? Object.keys(sub)
            .map((key) => `${name}.${key}`)
            .join(', ')
        : name,
    )
    .join(', ');
}

/**
 * Gates an operation on the client capabilities its `@McpMayRequestInput` declarations need:
 * `REQUIRED` ones after guards and before the handler on every round, `CONDITIONAL` ones when the
 * handler emits such a request. All missing capabilities are reported in one -32021 (HTTP 400).
 * Emitting a request that was never declared is a server bug, answered with a bare -32603.
 *
 * Composed around {@link McpRequestStateInterceptor} by `McpInputStepsInterceptor`, the innermost
 * interceptor of operations that declare input or state.
 * @internal
 */
@Injectable()
export class McpCapabilityInterceptor implements NestInterceptor {
  private readonly logger = new Logger('McpModule');

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const call = operationCallOf(context.getArgs());
    // No early return for operations without declarations: what they emit is undeclared by definition.
    if (!call || call.purpose !== 'operation') return next.handle();
    const request = call.context;
    const declarations = call.profile.declarations;

    const required = declarations.filter(
      (declaration) => declaration.requirement === McpInputRequirement.REQUIRED,
    );
    this.assertSupported(
      request.clientCapabilities,
      required.map((declaration) => declaration.type),
    );

    const declaredTypes = new Set(declarations.map((declaration) => declaration.type));
    return next.handle().pipe(
      map((result: unknown) => {
        if (!(result instanceof McpInputRequiredResult)) return result;
        const requests = [...result.inputRequests];
        const undeclared = requests.filter(
          ([, inputRequest]) => !declaredTypes.has(inputRequest.type),
        );
        if (undeclared.length > 0) {
          this.logger.error(undeclaredInputMessage(request.method, request.target, undeclared));
          throw internalError();
        }
        this.assertSupported(
          request.clientCapabilities,
          requests.map(([, inputRequest]) => inputRequest.type),
        );
        return result;
      }),
    );
  }

  private assertSupported(
    capabilities: ClientCapabilities,
    types: Parameters<typeof missingCapabilities>[1],
  ): void {
    const missing = missingCapabilities(capabilities, types);
    if (missing) {
      throw new MissingRequiredClientCapabilityError(
        { requiredCapabilities: missing },
        `Missing required client capabilities: ${describeMissing(missing)}`,
      );
    }
  }
}
