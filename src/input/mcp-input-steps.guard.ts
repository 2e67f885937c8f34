import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { operationCallOf } from '../protocol/mcp-operation-call';
import { McpInputSteps } from './mcp-input-steps.service';

/**
 * The first half of an operation's input steps, as its last guard: required capabilities, then
 * the incoming request state and input responses. A refusal here runs none of the application's
 * interceptors, pipes or handler.
 * @internal
 */
@Injectable()
export class McpInputStepsGuard implements CanActivate {
  constructor(private readonly steps: McpInputSteps) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const call = operationCallOf(context.getArgs());
    if (call?.purpose === 'operation') await this.steps.before(call);
    return true;
  }
}
