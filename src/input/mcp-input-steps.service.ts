import { Injectable } from '@nestjs/common';
import { isObservable, lastValueFrom } from 'rxjs';
import type { McpOperationCall } from '../protocol/mcp-operation-call';
import { McpRequestStateInterceptor } from '../state/mcp-request-state.interceptor';
import { McpCapabilityInterceptor } from './mcp-capability.interceptor';
import { McpInputRequiredResult } from './mcp-input-required.result';

/**
 * The input steps of an operation that declares input or state: capability gating around state
 * protection. {@link before} runs as the operation's last guard (after the application's guards
 * and argument validation, before its interceptors, pipes and the handler); {@link after} runs
 * right around the method, inside every interceptor, so what it records is what the handler
 * returned. Neither is an entry of Nest's interceptor chain, which costs every call an rxjs
 * pipeline and a bound async resource.
 * @internal
 */
@Injectable()
export class McpInputSteps {
  constructor(
    private readonly capability: McpCapabilityInterceptor,
    private readonly state: McpRequestStateInterceptor,
  ) {}

  /** A missing required capability is reported before any state is opened. */
  before(call: McpOperationCall): Promise<void> {
    this.capability.checkRequired(call);
    return this.state.open(call);
  }

  /** Checks and records what the handler returned (a value, promise or observable). */
  async after(call: McpOperationCall, returned: unknown): Promise<unknown> {
    let result = await returned;
    if (isObservable(result)) result = await lastValueFrom(result);
    if (result instanceof McpInputRequiredResult) this.capability.checkEmitted(call, result);
    return this.state.close(call, result);
  }
}
