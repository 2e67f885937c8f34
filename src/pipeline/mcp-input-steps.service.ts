import { Injectable } from '@nestjs/common';
import { isObservable, lastValueFrom } from 'rxjs';
import type { McpOperationCall } from './mcp-operation-call';
import { andThen, isPromiseLike, type MaybePromise } from '../util/maybe-promise';
import { McpReplayStep } from '../replay/mcp-replay.step';
import { RequestStateProtection } from './request-state.protection';
import { CapabilityGate } from './capability.gate';
import { McpInputRequiredResult } from '../input/mcp-input-required.result';

/** What the method returned, as a promise of its value (an observable gives its last value). */
async function valueOf(returned: unknown): Promise<unknown> {
  const value = await returned;
  return isObservable(value) ? lastValueFrom(value) : value;
}

/**
 * The input steps of an operation that declares input or state: capability gating around state
 * protection around the replay ledger (only for `replay: true` operations). {@link before} runs as the operation's last guard (after the application's guards
 * and argument validation, before its interceptors, pipes and the handler); {@link after} runs
 * right around the method, inside every interceptor, so what it records is what the handler
 * returned. Neither is an entry of Nest's interceptor chain, which costs every call an rxjs
 * pipeline and a bound async resource.
 * @internal
 */
@Injectable()
export class McpInputSteps {
  constructor(
    private readonly capability: CapabilityGate,
    private readonly state: RequestStateProtection,
    private readonly replay: McpReplayStep,
  ) {}

  /**
   * A missing required capability is reported before any state is opened. Synchronous unless
   * opening the state has to wait (an asynchronous resolver, protector or single-use store).
   */
  before(call: McpOperationCall): MaybePromise<void> {
    this.capability.checkRequired(call);
    return andThen(this.state.open(call), () => {
      if (call.profile.replay) this.replay.begin(call);
    });
  }

  /**
   * Checks and records what the handler returned (a value, promise or observable) or threw; a
   * plain value is settled at once.
   */
  after(call: McpOperationCall, returned: unknown): MaybePromise<unknown> {
    if (call.profile.replay || isPromiseLike(returned) || isObservable(returned))
      return this.afterWaiting(call, returned);
    return this.settle(call, returned);
  }

  private async afterWaiting(call: McpOperationCall, returned: unknown): Promise<unknown> {
    const value = valueOf(returned);
    return this.settle(call, await (call.profile.replay ? this.replay.settle(call, value) : value));
  }

  private settle(call: McpOperationCall, result: unknown): MaybePromise<unknown> {
    if (result instanceof McpInputRequiredResult) this.capability.checkEmitted(call, result);
    return this.state.close(call, result);
  }
}
