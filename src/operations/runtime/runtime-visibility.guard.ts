import { Logger, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { clip } from '../../kit/clip';
import { OperationHiddenError } from '../../kit/errors/operation-hidden.error';
import { operationCallOf } from '../../pipeline/operation-call';
import type { McpRuntimeDefinition } from './mcp-runtime-definition.interface';

const logger = new Logger('McpModule');

type Predicate = NonNullable<McpRuntimeDefinition<object>['visibleTo']>;

/**
 * A run-time operation's `visibleTo` as its first method guard: after the global guards (which
 * authenticate the caller), before its own guards and scope check — so a caller it hides learns
 * nothing from a guard's refusal or a scope challenge either. A refusal, and a predicate that
 * throws, is an {@link OperationHiddenError}: every path answers as for an unknown operation.
 * @internal
 */
export class RuntimeVisibilityGuard implements CanActivate {
  constructor(private readonly visibleTo: Predicate) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const call = operationCallOf(context.getArgs());
    // Only MCP calls reach a run-time operation's handler; anything else is refused.
    if (!call) throw new OperationHiddenError();
    let shown: boolean;
    try {
      shown = (await this.visibleTo(call.context)) === true;
    } catch {
      logger.debug(
        `The visibleTo of MCP ${call.profile.kind} "${clip(call.target)}" threw; hidden`,
      );
      shown = false;
    }
    if (!shown) throw new OperationHiddenError();
    return true;
  }
}
