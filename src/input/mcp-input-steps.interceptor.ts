import {
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import type { Observable } from 'rxjs';
import { McpReplayStep } from '../replay/mcp-replay.step';
import { McpRequestStateInterceptor } from '../state/mcp-request-state.interceptor';
import { McpCapabilityInterceptor } from './mcp-capability.interceptor';

/**
 * The input steps of an operation as one interceptor: capability gating wrapping state protection
 * wrapping the replay ledger (which passes straight through unless the operation has `replay: true`),
 * composed directly rather than as two entries of Nest's chain, which costs every call an async
 * hop and a bound async resource per entry.
 * @internal
 */
@Injectable()
export class McpInputStepsInterceptor implements NestInterceptor {
  constructor(
    private readonly capability: McpCapabilityInterceptor,
    private readonly state: McpRequestStateInterceptor,
    private readonly replay: McpReplayStep,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return this.capability.intercept(context, {
      handle: () =>
        this.state.intercept(context, { handle: () => this.replay.intercept(context, next) }),
    });
  }
}
