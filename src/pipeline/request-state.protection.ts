import { Inject, Injectable, Logger } from '@nestjs/common';
import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../errors/mcp-error-codes';
import { parseInputResponse } from '../input/input-response.parser';
import type { McpInputResponse } from '../input/mcp-input-response';
import { McpInputResponses } from '../input/mcp-input-responses';
import { McpInputRequiredResult } from '../input/mcp-input-required.result';
import { INPUT_REQUEST_DESCRIPTORS } from '../input/input-request-descriptor';
import type { McpRequestContext } from '../interfaces/mcp-request-context.interface';
import type { ResolvedMcpOptions } from '../mcp-options.resolver';
import { MCP_RESOLVED_OPTIONS } from '../mcp-resolved-options.token';
import type { McpOperationCall } from './mcp-operation-call';
import { internalError } from '../errors/internal-error';
import { clip } from '../util/clip';
import { andThen, isPromiseLike, type MaybePromise } from '../util/maybe-promise';
import { nullPrototypeRecord } from '../util/own-property';
import { ConsumedStateStoreDelegate } from '../stores/one-time/consumed-state-store.delegate';
import { ConsumedStateStoreError } from '../stores/one-time/consumed-state-store.error';
import { PartitionResolverDelegate } from '../identity/partition-resolver.delegate';
import { McpRequestStateMode } from '../input/mcp-request-state-mode.enum';
import { stableParams, type RequestStateBinding } from '../state/request-state-binding';
import { asRequestStateProtectionError } from '../state/request-state-protection.error';
import { RequestStateSealer, type OpenedRequestState } from '../state/request-state.sealer';
import { sha256Base64Url } from '../util/sha256';

/** The one message every rejected state gets, whatever the reason (the reason is logged). */
export const INVALID_REQUEST_STATE_MESSAGE = 'Invalid request state';
/** Largest application-protected state, in UTF-8 bytes. */
export const MAX_APPLICATION_STATE_BYTES = 65_536;

/**
 * Protects request state around an operation, in two steps the pipeline runs at fixed places.
 * {@link open}, from the last guard: checks the input responses' protocol shapes and opens the
 * incoming state of the operation's mode (framework state is verified, bound and limit-checked;
 * any failure is one -32602), then consumes a single-use state. {@link close}, right around the
 * method: seals outgoing framework state, or checks outgoing application state; a state that
 * cannot be produced becomes a bare -32603 and no state is emitted. It records what the handler
 * emitted on the call, so outer interceptors cannot change what reaches the wire.
 * @internal
 */
@Injectable()
export class RequestStateProtection {
  private readonly logger = new Logger('McpRequestState');

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly sealer: RequestStateSealer,
    private readonly partitions: PartitionResolverDelegate,
    private readonly consumed: ConsumedStateStoreDelegate,
  ) {}

  /**
   * Opens the round before the handler; a refused state or response throws, consuming nothing.
   * Synchronous unless the partition resolver, the protector or the single-use store is not.
   */
  open(call: McpOperationCall): MaybePromise<void> {
    return andThen(this.openRound(call.context, call), (binding) => {
      call.stateBinding = binding;
    });
  }

  /** Closes the round with the handler's (awaited) result. */
  close(call: McpOperationCall, result: unknown): Promise<unknown> | unknown {
    if (!(result instanceof McpInputRequiredResult)) return result;
    return this.closeRound(call.context, call, call.stateBinding, result);
  }

  private openRound(
    request: McpRequestContext,
    round: McpOperationCall,
  ): MaybePromise<RequestStateBinding | undefined> {
    const rawState = round.params.requestState;
    if (rawState !== undefined && typeof rawState !== 'string')
      throw this.rejectState(request, 'malformed');
    switch (round.profile.stateMode) {
      case McpRequestStateMode.FRAMEWORK_PROTECTED:
        // Without a state to open, the binding waits until there is one to seal (most calls finish).
        if (rawState === undefined)
          return this.acceptRound(request, round, undefined, undefined, undefined);
        return andThen(this.bindingFor(request, round), (binding) =>
          andThen(this.openFrameworkState(request, round, rawState, binding), (askedKinds) =>
            this.acceptRound(request, round, rawState, binding, askedKinds),
          ),
        );
      case McpRequestStateMode.APPLICATION_PROTECTED:
        if (rawState !== undefined) {
          if (rawState === '') throw this.rejectState(request, 'malformed');
          if (Buffer.byteLength(rawState) > MAX_APPLICATION_STATE_BYTES)
            throw this.rejectState(request, 'too_large');
          round.applicationState = rawState;
        }
        return this.acceptRound(request, round, rawState, undefined, undefined);
      default:
        return this.acceptRound(request, round, rawState, undefined, undefined);
    }
  }

  /** Opens framework state onto the call; gives the kinds of input its round asked for. */
  private openFrameworkState(
    request: McpRequestContext,
    round: McpOperationCall,
    rawState: string,
    binding: RequestStateBinding,
  ): MaybePromise<Readonly<Record<string, McpInputResponse['kind']>>> {
    const accept = (opened: OpenedRequestState) => {
      round.frameworkState = opened.value;
      round.openedHeader = opened.header;
      round.openedLedger = opened.replayLedger;
      return opened.askedKinds;
    };
    const refuse = (error: unknown): never => {
      throw this.rejectState(request, asRequestStateProtectionError(error).reason);
    };
    let opening: MaybePromise<OpenedRequestState>;
    try {
      opening = this.sealer.openNow(rawState, binding, request.requestId);
    } catch (error) {
      return refuse(error);
    }
    return isPromiseLike(opening) ? opening.then(accept, refuse) : accept(opening);
  }

  /** Reads the input responses, then consumes a single-use state: the round is accepted. */
  private acceptRound(
    request: McpRequestContext,
    round: McpOperationCall,
    rawState: string | undefined,
    binding: RequestStateBinding | undefined,
    askedKinds: Readonly<Record<string, McpInputResponse['kind']>> | undefined,
  ): MaybePromise<RequestStateBinding | undefined> {
    round.responses = this.readResponses(round.params.inputResponses, askedKinds);
    // Last, once everything the client sent is known good: a refused retry consumes nothing.
    if (round.profile.singleUse && rawState !== undefined && round.openedHeader)
      return this.consume(request, rawState, round.openedHeader.exp).then(() => binding);
    return binding;
  }

  /** Accepts a single-use state once: a second presentation, at any time before expiry, is refused. */
  private async consume(
    request: McpRequestContext,
    rawState: string,
    expiresAt: number,
  ): Promise<void> {
    const id = sha256Base64Url(rawState);
    let first: boolean;
    try {
      first = await this.consumed.consume(id, expiresAt);
    } catch (error) {
      const reason = error instanceof ConsumedStateStoreError ? error.reason : 'store_failure';
      this.logger.error(
        `MCP ${request.method} "${clip(request.target)}" (request ${clip(request.requestId)}): single-use state could not be recorded (${clip(reason)})`,
      );
      throw internalError();
    }
    if (first !== true) throw this.rejectState(request, 'replayed');
  }

  private readResponses(
    raw: unknown,
    askedKinds: Readonly<Record<string, McpInputResponse['kind']>> | undefined,
  ): McpInputResponses {
    if (raw === undefined) return McpInputResponses.empty();
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      throw new ProtocolError(
        McpErrorCode.InvalidParams,
        'Invalid params: inputResponses must be an object',
      );
    }
    // Keys are the client's: looked up as own properties only, kept as data even when "__proto__".
    const responses = nullPrototypeRecord<McpInputResponse>();
    for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
      const asked = askedKinds && Object.hasOwn(askedKinds, key) ? askedKinds[key] : undefined;
      const parsed = parseInputResponse(value, asked);
      if (!parsed) {
        throw new ProtocolError(
          McpErrorCode.InvalidParams,
          `Invalid params: input response "${clip(key)}" is not a valid result`,
          { key: clip(key) },
        );
      }
      responses[key] = parsed;
    }
    return McpInputResponses.from(responses, askedKinds ? Object.keys(askedKinds) : undefined);
  }

  private async closeRound(
    request: McpRequestContext,
    round: McpOperationCall,
    binding: RequestStateBinding | undefined,
    result: McpInputRequiredResult,
  ): Promise<unknown> {
    // A replay-style operation's answers so far travel in framework state, with or without its own.
    const replayLedger = round.replay?.encodedLedger();
    if (result.state === undefined && replayLedger === undefined) {
      round.emitted = { result, encodedState: undefined };
      return result;
    }
    if (result.state !== undefined && result.state.mode !== round.profile.stateMode) {
      this.logger.error(
        `MCP ${request.method} "${clip(request.target)}" returned ${result.state.mode} state but declares requestState "${round.profile.stateMode}"`,
      );
      throw internalError();
    }
    if (result.state?.mode === 'application') {
      if (Buffer.byteLength(result.state.value) > MAX_APPLICATION_STATE_BYTES) {
        this.logger.error(
          `MCP ${request.method} "${clip(request.target)}" returned application state over ${MAX_APPLICATION_STATE_BYTES} bytes`,
        );
        throw internalError();
      }
      round.emitted = { result, encodedState: result.state.value };
      return result;
    }
    const askedKinds = Object.fromEntries(
      [...result.inputRequests].map(([key, inputRequest]) => [
        key,
        INPUT_REQUEST_DESCRIPTORS[inputRequest.type].responseKind,
      ]),
    );
    // Outside the try: a failing partition resolver is the application's error, not a sealing one.
    const boundTo = binding ?? (await this.bindingFor(request, round));
    try {
      const encodedState = await this.sealer.seal(
        result.state?.value,
        askedKinds,
        boundTo,
        request.requestId,
        round.openedHeader,
        Date.now(),
        replayLedger,
      );
      round.emitted = { result, encodedState };
    } catch (error) {
      const reason = asRequestStateProtectionError(error).reason;
      this.logger.error(
        `MCP ${request.method} "${clip(request.target)}": request state could not be sealed (${reason})`,
      );
      throw internalError();
    }
    return result;
  }

  private bindingFor(
    request: McpRequestContext,
    round: McpOperationCall,
  ): MaybePromise<RequestStateBinding> {
    const params = stableParams(round.params);
    return andThen(this.partitions.resolve(request), (partition) => ({
      endpoint: this.options.endpoint,
      protocolVersion: request.protocolVersion ?? '',
      method: request.method,
      target: request.target,
      partition,
      stableParams: params,
    }));
  }

  private rejectState(request: McpRequestContext, reason: string): ProtocolError {
    this.logger.warn(
      `MCP ${request.method} "${clip(request.target)}" (request ${clip(request.requestId)}): request state rejected: ${reason}`,
    );
    return new ProtocolError(McpErrorCode.InvalidParams, INVALID_REQUEST_STATE_MESSAGE);
  }
}
