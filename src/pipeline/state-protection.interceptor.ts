import { Inject, Injectable, Logger } from '@nestjs/common';
import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../errors/mcp-error-codes';
import { internalError } from '../errors/internal-error';
import { keyStoreUnavailable } from '../errors/key-store-unavailable';
import type { McpJsonValue } from '../util/json-value';
import { INPUT_REQUEST_DESCRIPTORS } from '../input/input-request-descriptor';
import { readInputResponses } from '../input/input-responses.reader';
import type { McpInputResponse } from '../input/mcp-input-response';
import { McpInputRequiredResult } from '../input/mcp-input-required.result';
import { McpRequestStateMode } from '../input/mcp-request-state-mode.enum';
import { McpReplayStep } from '../replay/mcp-replay.step';
import type { ReplayExecution } from '../replay/replay-execution';
import type { McpInputResponses } from '../input/mcp-input-responses';
import { McpPorts } from '../ports/mcp-ports.service';
import { CONSUMED_STATE_STORE_PORT } from '../stores/one-time/consumed-state-store.interface';
import { CallerPartitions } from '../identity/caller-partitions';
import type { RequestStateBinding } from '../state/request-state-binding';
import {
  asRequestStateProtectionError,
  type RequestStateFailureDetail,
  type RequestStateFailureReason,
} from '../state/request-state-protection.error';
import { rejectionHint } from '../state/request-state-rejection-hint';
import { RequestStateSealer, type OpenedRequestState } from '../state/request-state.sealer';
import { INVALID_REQUEST_STATE_MESSAGE } from '../errors/invalid-request-state.message';
import { MAX_APPLICATION_STATE_BYTES } from '../state/request-state.constants';
import { flowOf, MAX_FLOW_PREFIX_BYTES, withFlow } from '../state/application-state-flow';
import type { SealedFlow } from '../state/sealed-flow';
import { KeyringRecordIntegrity } from '../keyring/record-integrity';
import { MCP_ENDPOINT } from '../util/mcp.constants';
import { clip } from '../util/clip';
import { andThen, isPromiseLike, type MaybePromise } from '../util/maybe-promise';
import { McpTelemetry } from '../observability/mcp-telemetry.service';
import { EmittedRound } from './emitted-round';
import { toSealedInputRequired } from './input-required-wire';
import { LibraryInterceptor, refusal } from './library-interceptor';
import type { OperationCall } from './operation-call';
import { openedOperationContext } from './operation-context.factory';
import type { OpenedRound } from './opened-round';
import { CallStateBinder, consumeSingleUse } from './call-state';

/** The incoming state of a round, as far as it was opened before the answers are read. */
interface IncomingState {
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
 * Protects request state around an operation's method, inside capability gating. Before it:
 * opens the incoming state of the operation's mode (framework state is verified, bound and
 * limit-checked; any failure is one -32602), reads the input responses' protocol shapes, consumes
 * a single-use state last (a refused retry consumes nothing) and, for `replay: true`, resumes the
 * ledger; the round it opened is what the method's context shows. After it: seals outgoing
 * framework state, or checks outgoing application state; a state that cannot be produced becomes
 * a bare -32603 and no state is emitted. What leaves it upward carries the sealed token only, so
 * the application's interceptors never see plaintext state.
 * @internal
 */
@Injectable()
export class StateProtectionInterceptor extends LibraryInterceptor {
  private readonly logger = new Logger('McpRequestState');
  private readonly binder: CallStateBinder;

  constructor(
    @Inject(MCP_ENDPOINT) endpoint: string,
    private readonly sealer: RequestStateSealer,
    partitions: CallerPartitions,
    private readonly ports: McpPorts,
    private readonly replay: McpReplayStep,
    private readonly telemetry: McpTelemetry,
    private readonly integrity: KeyringRecordIntegrity,
  ) {
    super();
    this.binder = new CallStateBinder(endpoint, partitions, this.logger);
  }

  around(call: OperationCall, proceed: () => Promise<unknown>): MaybePromise<unknown> {
    return andThen(this.open(call), (round) => {
      call.recordOpenedRound(round);
      const returned = round.replay ? this.settleReplay(call, round, proceed()) : proceed();
      return returned.then((result) => this.close(call, round, result));
    });
  }

  /** What a replay round answers: its pending asks, or what the handler returned or threw. */
  private async settleReplay(
    call: OperationCall,
    round: OpenedRound,
    returned: Promise<unknown>,
  ): Promise<unknown> {
    const settled = await this.replay.settle(
      call.context,
      round.replay as ReplayExecution,
      round.frameworkState,
      returned,
    );
    if (settled.kind === 'refused') throw refusal(call, settled.error);
    if (settled.kind === 'thrown') throw settled.error;
    return settled.value;
  }

  /**
   * The round before the method: refused state or responses throw, consuming nothing.
   * Synchronous unless the partition resolver, the protector or the single-use store is not.
   */
  private open(call: OperationCall): MaybePromise<OpenedRound> {
    return andThen(this.incoming(call), (incoming) => {
      const askedKinds = incoming.framework?.askedKinds;
      let responses;
      try {
        responses = readInputResponses(call.params.inputResponses, askedKinds);
      } catch (error) {
        throw error instanceof ProtocolError ? refusal(call, error) : error;
      }
      const round = (): OpenedRound => {
        const framework = incoming.framework;
        const replay = call.profile.replay
          ? this.beginReplay(call, framework?.replayLedger, responses)
          : undefined;
        const flow = framework?.flow ?? incoming.applicationFlow ?? { id: call.context.flowId };
        // One object is both what the context is opened with and the round (no copy of it); its
        // context is the call's until the opened one is made from it.
        const opened: { -readonly [K in keyof OpenedRound]: OpenedRound[K] } & { flowId: string } =
          {
            responses,
            frameworkState: framework?.value,
            applicationState: incoming.application,
            replay,
            flowId: flow.id,
            flow,
            binding: incoming.binding,
            header: framework?.header,
            context: call.context,
          };
        opened.context = openedOperationContext(call.context, opened);
        return opened;
      };
      // Last, once everything the client sent is known good: a refused retry consumes nothing.
      if (call.profile.singleUse && incoming.raw !== undefined && incoming.framework)
        return consumeSingleUse(
          call,
          this.ports.get(CONSUMED_STATE_STORE_PORT),
          { raw: incoming.raw, expiresAt: incoming.framework.header.exp },
          (incoming.binding as RequestStateBinding).partition,
          this.logger,
        ).then((first) => {
          if (!first) throw this.rejectState(call, 'replayed');
          return round();
        });
      return round();
    });
  }

  private beginReplay(
    call: OperationCall,
    ledger: string | undefined,
    responses: McpInputResponses,
  ): ReplayExecution {
    try {
      return this.replay.begin(call.context, ledger, responses);
    } catch (error) {
      throw error instanceof ProtocolError ? refusal(call, error) : error;
    }
  }

  private incoming(call: OperationCall): MaybePromise<IncomingState> {
    const raw = call.params.requestState;
    if (raw !== undefined && typeof raw !== 'string') throw this.rejectState(call, 'malformed');
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
      throw this.rejectState(call, 'too_large');
    const opened = flowOf(this.integrity, raw, call.context);
    const application = opened.application;
    if (application === '') throw this.rejectState(call, 'malformed');
    if (Buffer.byteLength(application) > MAX_APPLICATION_STATE_BYTES)
      throw this.rejectState(call, 'too_large');
    if (opened.unauthenticated)
      this.logger.debug(
        `${this.where(call, call.context.flowId)}: the application state's flow prefix did not verify; the round starts a new flow id`,
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
        this.logger.warn(`${this.where(call)}: request state not opened: the key's token failed`);
        throw refusal(call, keyStoreUnavailable());
      }
      throw this.rejectState(call, failure.reason, failure.detail, failure.flow?.id);
    };
    let opening: MaybePromise<OpenedRequestState>;
    try {
      opening = this.sealer.openNow(raw, binding, call.context.requestId);
    } catch (error) {
      return refuse(error);
    }
    return isPromiseLike(opening) ? opening.then((opened) => opened, refuse) : opening;
  }

  /** The round after the method: an input-required result leaves with its state sealed. */
  private close(call: OperationCall, round: OpenedRound, result: unknown): MaybePromise<unknown> {
    if (!(result instanceof McpInputRequiredResult)) return result;
    // A replay-style operation's answers so far travel in framework state, with or without its own.
    const ledger = round.replay?.encodedLedger();
    const emitted = (state: string | undefined) =>
      new EmittedRound(result.inputRequests, toSealedInputRequired(result, state));
    if (result.state === undefined && ledger === undefined) return emitted(undefined);
    if (result.state !== undefined && result.state.mode !== call.profile.stateMode) {
      this.logger.error(
        `${this.where(call)} returned ${result.state.mode} state but declares requestState "${call.profile.stateMode}"`,
      );
      throw refusal(call, internalError());
    }
    if (result.state?.mode === 'application') {
      if (Buffer.byteLength(result.state.value) > MAX_APPLICATION_STATE_BYTES) {
        this.logger.error(
          `${this.where(call)} returned application state over ${MAX_APPLICATION_STATE_BYTES} bytes`,
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
        if (reason === 'too_large' && ledger !== undefined && (await this.tooLargeAlone(seal))) {
          this.logger.warn(`${this.where(call)}: the answers so far are too large to seal`);
          throw refusal(call, this.replay.answersTooLarge());
        }
        this.logger.error(`${this.where(call)}: request state could not be sealed (${reason})`);
        throw refusal(call, reason === 'key_unavailable' ? keyStoreUnavailable() : internalError());
      });
    });
  }

  /** Whether sealing fails for size even without the operation's own state. */
  private async tooLargeAlone(
    seal: (value: McpJsonValue | undefined) => Promise<string>,
  ): Promise<boolean> {
    try {
      await seal(undefined);
      return false;
    } catch (error) {
      return asRequestStateProtectionError(error).reason === 'too_large';
    }
  }

  private currentTrace(): { trace?: string } {
    const trace = this.telemetry.activeTrace();
    return trace === undefined ? {} : { trace };
  }

  /** The call and its flow: the opened round's, or `flowId` when the state was refused. */
  private where(call: OperationCall, flowId = call.opened?.flow.id): string {
    const flow = flowId === undefined ? 'state not opened' : `flow ${flowId}`;
    return `MCP ${call.context.method} "${clip(call.target)}" (request ${clip(call.context.requestId)}, ${flow})`;
  }

  private rejectState(
    call: OperationCall,
    reason: RequestStateFailureReason,
    detail?: RequestStateFailureDetail,
    flowId?: string,
  ): ProtocolError {
    call.recordRejection(flowId === undefined ? { reason, detail } : { reason, detail, flowId });
    this.logger.warn(
      `${this.where(call, flowId)}: request state rejected: ${reason}${detail === undefined ? '' : ` (${detail})`}${rejectionHint(reason, detail)}`,
    );
    return refusal(
      call,
      new ProtocolError(McpErrorCode.InvalidParams, INVALID_REQUEST_STATE_MESSAGE),
    );
  }
}
