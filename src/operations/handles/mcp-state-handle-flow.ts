import type { McpJsonCompatible } from '../../kit/json-value';

/** What a flow needs from {@link McpStateHandles} to save and finish. @internal */
export interface StateHandleFlowPort {
  save(flow: StateHandleFlowPosition, data: unknown): Promise<string>;
  finish(handle: string): Promise<void>;
}

/** Where a flow stands: its live handle (if any), expiry and round. @internal */
export interface StateHandleFlowPosition {
  handle: string | undefined;
  expiresAt: number | undefined;
  round: number;
}

/**
 * One round of an `APPLICATION_PROTECTED` flow kept under a rotating handle, from
 * `McpStateHandles.resume(ctx)`. On a first round `data` is `undefined`; on a retry it is what the
 * previous round saved, and the presented handle has already been redeemed (it can never be used
 * again). Either `save` the data for the next round and return the handle as the result's
 * application state, or `finish` the flow.
 *
 * @publicApi
 */
export class McpStateHandleFlow<T> {
  private finished = false;

  /** @internal */
  constructor(
    /** What the previous round saved; `undefined` on a first round. */
    readonly data: T | undefined,
    private readonly position: StateHandleFlowPosition,
    private readonly port: StateHandleFlowPort,
  ) {}

  /** Whether this round continues a flow (a handle was presented and redeemed). */
  get resumed(): boolean {
    return this.data !== undefined;
  }

  /**
   * Stores `data` for the next round and resolves the handle to send:
   * `.applicationState(await flow.save(next))`. The handle is this round's fresh one (the one
   * presented was replaced when it was redeemed); saving again in the same round overwrites it.
   * Data over `requestState.maxHandleDataBytes`, a flow past `requestState.maxRounds` or its
   * lifetime, or a repository failure rejects the call with `-32603` (the reason is logged).
   */
  save(data: T & McpJsonCompatible<T>): Promise<string> {
    if (this.finished) return Promise.reject(new Error('This state handle flow is finished'));
    return this.port.save(this.position, data);
  }

  /** Ends the flow: its record is deleted and no handle of it is redeemable any more. */
  async finish(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    const handle = this.position.handle;
    this.position.handle = undefined;
    if (handle !== undefined) await this.port.finish(handle);
  }
}
