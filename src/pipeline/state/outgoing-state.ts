import { internalError } from '../../kit/errors/internal-error';
import { keyStoreUnavailable } from '../../kit/errors/key-store-unavailable';
import { INPUT_REQUEST_DESCRIPTORS } from '../../input/input-request-descriptor';
import type { McpInputResponse } from '../../input/mcp-input-response';
import { McpInputRequiredResult } from '../../input/mcp-input-required.result';
import type { KeyringRecordIntegrity } from '../../keyring/record-integrity';
import type { McpTelemetry } from '../../observability/mcp-telemetry.service';
import type { McpReplayStep } from '../../request-state/replay/mcp-replay.step';
import { withFlow } from '../../request-state/sealing/application-state-flow';
import { MAX_APPLICATION_STATE_BYTES } from '../../request-state/sealing/request-state.constants';
import { asRequestStateProtectionError } from '../../request-state/sealing/request-state-protection.error';
import type { RequestStateSealer } from '../../request-state/sealing/request-state.sealer';
import type { McpJsonValue } from '../../kit/json-value';
import { andThen, type MaybePromise } from '../../kit/maybe-promise';
import { EmittedRound } from '../emitted-round';
import { toSealedInputRequired } from '../input-required-wire';
import { refusal } from '../library-interceptor';
import type { OpenedRound } from '../opened-round';
import type { OperationCall } from '../operation-call';
import type { CallStateBinder } from './call-state-binder';
import type { StateRefusals } from './state-refusals';

/**
 * The last step of state protection: an input-required result leaves with its state sealed
 * (framework state, with a replay operation's ledger) or its application state checked and
 * prefixed with the flow. A state that cannot be produced is a bare -32603 and no state leaves;
 * a replay ledger too large to carry on alone is the client's -32602.
 * @internal
 */
export class OutgoingStateSealer {
  constructor(
    private readonly sealer: RequestStateSealer,
    private readonly binder: CallStateBinder,
    private readonly integrity: KeyringRecordIntegrity,
    private readonly replay: McpReplayStep,
    private readonly telemetry: McpTelemetry,
    private readonly refusals: StateRefusals,
  ) {}

  close(call: OperationCall, round: OpenedRound, result: unknown): MaybePromise<unknown> {
    if (!(result instanceof McpInputRequiredResult)) return result;
    // A replay-style operation's answers so far travel in framework state, with or without its own.
    const ledger = round.replay?.encodedLedger();
    const emitted = (state: string | undefined) =>
      new EmittedRound(result.inputRequests, toSealedInputRequired(result, state));
    if (result.state === undefined && ledger === undefined) return emitted(undefined);
    const where = () => this.refusals.where(call);
    if (result.state !== undefined && result.state.mode !== call.profile.stateMode) {
      this.refusals.logger.error(
        `${where()} returned ${result.state.mode} state but declares requestState "${call.profile.stateMode}"`,
      );
      throw refusal(call, internalError());
    }
    if (result.state?.mode === 'application') {
      if (Buffer.byteLength(result.state.value) > MAX_APPLICATION_STATE_BYTES) {
        this.refusals.logger.error(
          `${where()} returned application state over ${MAX_APPLICATION_STATE_BYTES} bytes`,
        );
        throw refusal(call, internalError());
      }
      return emitted(withFlow(this.integrity, result.state.value, round.flow.id, call.context));
    }
    const askedKinds: Record<string, McpInputResponse['kind']> = {};
    for (const [key, request] of result.inputRequests)
      askedKinds[key] = INPUT_REQUEST_DESCRIPTORS[request.type].responseKind;
    // Outside the try: a failing partition resolver is the application's error, not a sealing one.
    return andThen(round.binding ?? this.binder.bindingFor(call), (binding) => {
      // A flow first traced now keeps this round's span as its first.
      const flow =
        round.flow.trace === undefined ? { ...round.flow, ...this.currentTrace() } : round.flow;
      const seal = (value: McpJsonValue | undefined) =>
        this.sealer.seal(
          value,
          askedKinds,
          binding,
          call.context.requestId,
          round.header,
          Date.now(),
          ledger,
          flow,
        );
      return seal(result.state?.value).then(emitted, async (error: unknown) => {
        const reason = asRequestStateProtectionError(error).reason;
        // A replay round's ledger holds the client's answers: when they alone cannot be carried
        // on, that is the client's -32602, not a server fault.
        if (reason === 'too_large' && ledger !== undefined && (await tooLargeAlone(seal))) {
          this.refusals.logger.warn(`${where()}: the answers so far are too large to seal`);
          throw refusal(call, this.replay.answersTooLarge());
        }
        this.refusals.logger.error(`${where()}: request state could not be sealed (${reason})`);
        throw refusal(call, reason === 'key_unavailable' ? keyStoreUnavailable() : internalError());
      });
    });
  }

  private currentTrace(): { trace?: string } {
    const trace = this.telemetry.activeTrace();
    return trace === undefined ? {} : { trace };
  }
}

/** Whether sealing fails for size even without the operation's own state. */
async function tooLargeAlone(
  seal: (value: McpJsonValue | undefined) => Promise<string>,
): Promise<boolean> {
  try {
    await seal(undefined);
    return false;
  } catch (error) {
    return asRequestStateProtectionError(error).reason === 'too_large';
  }
}
