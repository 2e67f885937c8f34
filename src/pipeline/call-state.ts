import type { Logger } from '@nestjs/common';
import { internalError } from '../errors/internal-error';
import { serverBusy } from '../errors/server-busy';
import { unrepresentableNumberError } from '../errors/unrepresentable-number.error';
import type { CallerPartitions } from '../identity/caller-partitions';
import { stableParams, type RequestStateBinding } from '../state/request-state-binding';
import { ConsumedStateStoreError } from '../stores/one-time/consumed-state-store.error';
import type { ConsumedStateStore } from '../stores/one-time/consumed-state-store.interface';
import { clip } from '../util/clip';
import { andThen, type MaybePromise } from '../util/maybe-promise';
import { sha256Base64Url } from '../util/sha256';
import { unrepresentableParamAt } from '../util/unrepresentable-number';
import { refusal } from './library-interceptor';
import type { OperationCall } from './operation-call';

/** Which call a log line is about. @internal */
export function callSite(call: OperationCall): string {
  return `MCP ${call.context.method} "${clip(call.target)}" (request ${clip(call.context.requestId)})`;
}

/**
 * What a call's framework state is bound to: the endpoint, version, method, target, the caller's
 * partition and the params that must not change between rounds. A call whose params cannot be
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

/**
 * Accepts a single-use state once: answers whether this is its first presentation (a later one,
 * at any time before its expiry, is `false`). A store with no room answers -32000 with a retry hint (nothing consumed);
 * one that cannot record, a bare -32603; the reason is logged either way.
 * @internal
 */
export async function consumeSingleUse(
  call: OperationCall,
  store: ConsumedStateStore,
  state: { readonly raw: string; readonly expiresAt: number },
  partition: string,
  logger: Logger,
): Promise<boolean> {
  let first: boolean;
  try {
    // Shares are by caller: the store sees a digest of the partition, never the partition.
    first = await store.consume(
      sha256Base64Url(state.raw),
      state.expiresAt,
      sha256Base64Url(partition),
    );
  } catch (error) {
    const reason = error instanceof ConsumedStateStoreError ? error.reason : 'store_failure';
    if (reason === 'full' || reason === 'share') {
      // No room is not a fault, and nothing was consumed: the client may retry this state.
      logger.warn(`${callSite(call)}: single-use state could not be recorded (${reason})`);
      throw refusal(
        call,
        serverBusy(
          reason === 'share'
            ? 'Server busy: too many single-use states for this caller'
            : 'Server busy: too many single-use states',
          (error as ConsumedStateStoreError).retryAfterMs,
        ),
      );
    }
    logger.error(`${callSite(call)}: single-use state could not be recorded (${clip(reason)})`);
    throw refusal(call, internalError());
  }
  return first === true;
}
