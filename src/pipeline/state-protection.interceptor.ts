import { Inject, Injectable, Logger } from '@nestjs/common';
import { ProtocolError } from '@modelcontextprotocol/server';
import { readInputResponses } from '../input/input-responses.reader';
import type { McpInputResponses } from '../input/mcp-input-responses';
import { McpReplayStep } from '../request-state/replay/mcp-replay.step';
import type { ReplayExecution } from '../request-state/replay/replay-execution';
import { ConsumedStateStore } from '../request-state/stores/one-time/consumed-state-store.interface';
import { CallerPartitions } from '../auth/identity/caller-partitions';
import type { RequestStateBinding } from '../request-state/sealing/request-state-binding';
import { RequestStateSealer } from '../request-state/sealing/request-state.sealer';
import { KeyringRecordIntegrity } from '../keyring/record-integrity';
import { OutageLog } from '../redis/outage-log';
import { MCP_ENDPOINT } from '../kit/mcp.constants';
import { andThen, type MaybePromise } from '../kit/maybe-promise';
import { McpTelemetry } from '../observability/mcp-telemetry.service';
import { LibraryInterceptor, refusal } from './library-interceptor';
import type { OperationCall } from './operation-call';
import { openedOperationContext } from './operation-context.factory';
import type { OpenedRound } from './opened-round';
import { CallStateBinder } from './state/call-state-binder';
import { IncomingStateOpener, type IncomingState } from './state/incoming-state';
import { OutgoingStateSealer } from './state/outgoing-state';
import { consumeSingleUse } from './state/single-use-consumption';
import { StateRefusals } from './state/state-refusals';

/**
 * Protects request state around an operation's method, inside capability gating, in steps (each
 * its own file under `request-state/sealing/`): open the incoming state of the operation's mode, read the input
 * responses' protocol shapes, consume a single-use state last (a refused retry consumes nothing),
 * resume a `replay: true` ledger — the round it opened is what the method's context shows — and,
 * after the method, seal the outgoing state. What leaves it upward carries the sealed token only,
 * so the application's interceptors never see plaintext state.
 * @internal
 */
@Injectable()
export class StateProtectionInterceptor extends LibraryInterceptor {
  private readonly logger = new Logger('McpRequestState');
  private readonly incoming: IncomingStateOpener;
  private readonly outgoing: OutgoingStateSealer;
  private readonly refusals: StateRefusals;
  private readonly singleUseOutage = new OutageLog(this.logger, 'The single-use store');

  constructor(
    @Inject(MCP_ENDPOINT) endpoint: string,
    sealer: RequestStateSealer,
    partitions: CallerPartitions,
    @Inject(ConsumedStateStore) private readonly consumedStates: ConsumedStateStore,
    private readonly replay: McpReplayStep,
    telemetry: McpTelemetry,
    integrity: KeyringRecordIntegrity,
  ) {
    super();
    const binder = new CallStateBinder(endpoint, partitions, this.logger);
    const refusals = new StateRefusals(this.logger);
    this.incoming = new IncomingStateOpener(sealer, binder, integrity, refusals);
    this.outgoing = new OutgoingStateSealer(sealer, binder, integrity, replay, telemetry, refusals);
    this.refusals = refusals;
  }

  around(call: OperationCall, proceed: () => Promise<unknown>): MaybePromise<unknown> {
    return andThen(this.open(call), (round) => {
      call.recordOpenedRound(round);
      const returned = round.replay ? this.settleReplay(call, round, proceed()) : proceed();
      return returned.then((result) => this.outgoing.close(call, round, result));
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
    return andThen(this.incoming.open(call), (incoming) => {
      let responses;
      try {
        responses = readInputResponses(call.params.inputResponses, incoming.framework?.askedKinds);
      } catch (error) {
        throw error instanceof ProtocolError ? refusal(call, error) : error;
      }
      // Last, once everything the client sent is known good: a refused retry consumes nothing.
      if (call.profile.singleUse && incoming.raw !== undefined && incoming.framework)
        return consumeSingleUse(
          call,
          this.consumedStates,
          { raw: incoming.raw, expiresAt: incoming.framework.header.exp },
          (incoming.binding as RequestStateBinding).partition,
          this.logger,
          this.singleUseOutage,
        ).then((first) => {
          if (!first) throw this.refusals.reject(call, 'replayed');
          return this.round(call, incoming, responses);
        });
      return this.round(call, incoming, responses);
    });
  }

  /** The opened round: its values, then the context the method sees, made from them. */
  private round(
    call: OperationCall,
    incoming: IncomingState,
    responses: McpInputResponses,
  ): OpenedRound {
    const framework = incoming.framework;
    const replay = call.profile.replay
      ? this.beginReplay(call, framework?.replayLedger, responses)
      : undefined;
    const flow = framework?.flow ?? incoming.applicationFlow ?? { id: call.context.flowId };
    const values = {
      responses,
      frameworkState: framework?.value,
      applicationState: incoming.application,
      replay,
      flowId: flow.id,
      flow,
      binding: incoming.binding,
      header: framework?.header,
    };
    return { ...values, context: openedOperationContext(call.context, values) };
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
}
