import type { Logger } from '@nestjs/common';
import { unrepresentableNumberError } from '../../kit/errors/unrepresentable-number.error';
import type { CallerPartitions } from '../../auth/identity/caller-partitions';
import {
  stableArguments,
  stableParams,
  type RequestStateBinding,
} from '../../request-state/sealing/request-state-binding';
import { clip } from '../../kit/clip';
import { andThen, type MaybePromise } from '../../kit/maybe-promise';
import { unrepresentableParamAt } from '../../kit/unrepresentable-number';
import { refusal } from '../library-interceptor';
import type { OperationCall } from '../operation-call';

/** Which call a log line is about. @internal */
export function callSite(call: OperationCall): string {
  return `MCP ${call.context.method} "${clip(call.target)}" (request ${clip(call.context.requestId)})`;
}

/**
 * What a call's framework state is bound to: the endpoint, version, method, target, the caller's
 * partition, the params that must not change between rounds and the operation's definition. A call whose params cannot be
 * bound — a number a double cannot hold (`1e400`, a 400-digit integer) parses to `Infinity`,
 * which has no canonical spelling — is refused with -32602 naming where it is.
 * @internal
 */
export class CallStateBinder {
  constructor(
    private readonly endpoint: string,
    private readonly partitions: CallerPartitions,
    private readonly logger: Logger,
  ) {}

  bindingFor(call: OperationCall): MaybePromise<RequestStateBinding> {
    const params = this.stableParamsOf(call);
    const context = call.context;
    return andThen(this.partitions.resolve(context, call.detached), (partition) => ({
      endpoint: this.endpoint,
      protocolVersion: context.protocolVersion ?? '',
      method: context.method,
      target: call.target,
      partition,
      stableParams: params,
      stableArguments: () => stableArguments(call.params),
      definition: call.profile.definition ?? '',
    }));
  }

  private stableParamsOf(call: OperationCall): string {
    try {
      return stableParams(call.params);
    } catch (error) {
      const field = unrepresentableParamAt(call.params);
      if (field === undefined) throw error;
      this.logger.warn(`${callSite(call)}: refused, ${field} is a number a double cannot hold`);
      throw refusal(call, unrepresentableNumberError(field));
    }
  }
}
