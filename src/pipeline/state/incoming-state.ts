import { keyStoreUnavailable } from '../../kit/errors/key-store-unavailable';
import { McpRequestStateMode } from '../../input/mcp-request-state-mode.enum';
import type { KeyringRecordIntegrity } from '../../keyring/record-integrity';
import { flowOf, MAX_FLOW_PREFIX_BYTES } from '../../request-state/sealing/application-state-flow';
import type { RequestStateBinding } from '../../request-state/sealing/request-state-binding';
import { MAX_APPLICATION_STATE_BYTES } from '../../request-state/sealing/request-state.constants';
import { asRequestStateProtectionError } from '../../request-state/sealing/request-state-protection.error';
import type {
  OpenedRequestState,
  RequestStateSealer,
} from '../../request-state/sealing/request-state.sealer';
import type { SealedFlow } from '../../request-state/sealing/sealed-flow';
import { andThen, isPromiseLike, type MaybePromise } from '../../kit/maybe-promise';
import { refusal } from '../library-interceptor';
import type { OperationCall } from '../operation-call';
import type { CallStateBinder } from './call-state-binder';
import type { StateRefusals } from './state-refusals';

/** The incoming state of a round, as far as it was opened before the answers are read. @internal */
export interface IncomingState {
  readonly raw: string | undefined;
  readonly binding: RequestStateBinding | undefined;
  readonly framework: OpenedRequestState | undefined;
  readonly application: string | undefined;
  /** The flow an application-protected state's authentic prefix names. */
  readonly applicationFlow: SealedFlow | undefined;
}

const NO_INCOMING: IncomingState = {
  raw: undefined,
  binding: undefined,
  framework: undefined,
  application: undefined,
  applicationFlow: undefined,
};

/**
 * The first step of state protection: the `requestState` a call presents, opened in the operation's
 * mode — framework state verified, bound and limit-checked; application state stripped of the
 * module's flow prefix and size-checked. Any failure is the one -32602; nothing is consumed here.
 * Synchronous unless the partition resolver or the protector is not.
 * @internal
 */
export class IncomingStateOpener {
  constructor(
    private readonly sealer: RequestStateSealer,
    private readonly binder: CallStateBinder,
    private readonly integrity: KeyringRecordIntegrity,
    private readonly refusals: StateRefusals,
  ) {}

  open(call: OperationCall): MaybePromise<IncomingState> {
    const raw = call.params.requestState;
    if (raw !== undefined && typeof raw !== 'string') throw this.refusals.reject(call, 'malformed');
    if (raw === undefined)
      // What a state emitted after the method would be bound to is settled before it runs: a
      // call that cannot be bound (a number a double cannot hold) is refused before any effect.
      return call.profile.stateMode === McpRequestStateMode.FRAMEWORK_PROTECTED
        ? andThen(this.binder.bindingFor(call), (binding) => ({ ...NO_INCOMING, binding }))
        : NO_INCOMING;
    switch (call.profile.stateMode) {
      case McpRequestStateMode.FRAMEWORK_PROTECTED:
        return andThen(this.binder.bindingFor(call), (binding) =>
          andThen(this.openFramework(call, raw, binding), (framework) => ({
            ...NO_INCOMING,
            raw,
            binding,
            framework,
          })),
        );
      case McpRequestStateMode.APPLICATION_PROTECTED:
        return this.openApplication(call, raw);
      default:
        return { ...NO_INCOMING, raw };
    }
  }

  /**
   * An application-protected state: the flow prefix the module put ahead of the application's
   * string taken off (the flow id carried on when it verifies), the rest handed over verbatim.
   */
  private openApplication(call: OperationCall, raw: string): IncomingState {
    if (Buffer.byteLength(raw) > MAX_APPLICATION_STATE_BYTES + MAX_FLOW_PREFIX_BYTES)
      throw this.refusals.reject(call, 'too_large');
    const opened = flowOf(this.integrity, raw, call.context);
    const application = opened.application;
    if (application === '') throw this.refusals.reject(call, 'malformed');
    if (Buffer.byteLength(application) > MAX_APPLICATION_STATE_BYTES)
      throw this.refusals.reject(call, 'too_large');
    if (opened.unauthenticated)
      this.refusals.logger.debug(
        `${this.refusals.where(call, call.context.flowId)}: the application state's flow prefix did not verify; the round starts a new flow id`,
      );
    return {
      ...NO_INCOMING,
      raw,
      application,
      applicationFlow: opened.flowId === undefined ? undefined : { id: opened.flowId },
    };
  }

  private openFramework(
    call: OperationCall,
    raw: string,
    binding: RequestStateBinding,
  ): MaybePromise<OpenedRequestState> {
    const refuse = (error: unknown): never => {
      const failure = asRequestStateProtectionError(error);
      if (failure.reason === 'key_unavailable') {
        this.refusals.logger.warn(
          `${this.refusals.where(call)}: request state not opened: the key's token failed`,
        );
        throw refusal(call, keyStoreUnavailable());
      }
      throw this.refusals.reject(call, failure.reason, failure.detail, failure.flow?.id);
    };
    let opening: MaybePromise<OpenedRequestState>;
    try {
      opening = this.sealer.openNow(raw, binding, call.context.requestId);
    } catch (error) {
      return refuse(error);
    }
    return isPromiseLike(opening) ? opening.then((opened) => opened, refuse) : opening;
  }
}
