import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { operationCallOf } from './mcp-operation-call';
import { McpInputSteps } from './mcp-input-steps.service';
import { isPromiseLike } from '../util/maybe-promise';

/**
 * The first half of an operation's input steps, as its last guard: required capabilities, then
 * the incoming request state and input responses. A refusal here runs none of the application's
 * interceptors, pipes or handler.
 * @internal
 */
@Injectable()
export class McpInputStepsGuard implements CanActivate {
  constructor(private readonly steps: McpInputSteps) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const call = operationCallOf(context.getArgs());
    if (call?.purpose !== 'operation') return true;
    const opened = this.steps.before(call);
    return isPromiseLike(opened) ? opened.then(() => true) : true;
  }
}
