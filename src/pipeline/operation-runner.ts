import { HttpException, Inject, Injectable, Logger } from '@nestjs/common';
import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../kit/errors/mcp-error-codes';
import { McpHttpRefusal } from '../kit/errors/mcp-http-refusal.error';
import { internalError } from '../kit/errors/internal-error';
import { McpInputRequiredResult } from '../input/mcp-input-required.result';
import { McpRequestStateMode } from '../input/mcp-request-state-mode.enum';
import { undeclaredInputMessage } from '../input/undeclared-input.message';
import type { McpOperationContext } from '../input/mcp-operation-context.interface';
import { clip } from '../kit/clip';
import { andThen, type MaybePromise } from '../kit/maybe-promise';
import { McpSealedInputRequired } from './innermost-outcome';
import {
  OperationCall,
  type CompletionRequest,
  type OperationCallInit,
  type OperationCallProfile,
} from './operation-call';
import { createOperationContext } from './operation-context.factory';
import { mapOperationError, type OperationFailure } from './operation-error.mapper';
import { RATE_LIMIT_OPTIONS, type RateLimitOptions } from './rate-limit.options';
import type { OperationHandler } from './operation-pipeline.factory';
import { McpTelemetry } from '../observability/mcp-telemetry.service';
import { observedCallOf, observedRoundOf } from './call-observation';
import { McpCoreEvents } from '../options/mcp-core-events';
import { CallerPartitions } from '../auth/identity/caller-partitions';
import { publishCall } from './call-events';

/**
 * What the runner needs to know of an operation: how it runs, and what its steps need.
 * @internal
 */
export interface RunnableOperation {
  readonly profile: OperationCallProfile;
  readonly handler: OperationHandler;
  /** Runs `completion/complete` for the operation's arguments under the same enhancers. */
  readonly completionHandler?: OperationHandler;
  /** Runs only the operation's guards. */
  readonly guardsHandler?: OperationHandler;
}

/**
 * One call to run, whatever its entry point: the fast path, the SDK path, a task step.
 * @internal
 */
export interface OperationRunInput extends Pick<
  OperationCallInit,
  'target' | 'params' | 'args' | 'http' | 'detached' | 'sdk' | 'task'
> {
  readonly operation: RunnableOperation;
}

/** The delay a rate-limiting guard set as `Retry-After` (seconds) on the call's response, in ms. */
function retryAfterMsOf(call: OperationCall): number | undefined {
  const header = call.http.response?.getHeader?.('retry-after');
  const seconds = Number(Array.isArray(header) ? header[0] : header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

/** What an operation's guards say of listing it for one request ({@link OperationRunner.listingVerdict}). @internal */
export type ListingVerdict = 'shown' | 'hidden' | 'unauthenticated';

/** How one run of an operation ended. @internal */
export type OperationOutcome =
  | { readonly kind: 'complete'; readonly value: unknown }
  | {
      readonly kind: 'input_required';
      readonly wire: McpSealedInputRequired;
      /** The span context (`traceparent`) of the round that asked, when it was traced. */
      readonly trace?: string;
    }
  /** A tool's failure answered as an `isError` result. */
  | { readonly kind: 'tool_error'; readonly message: string }
  | { readonly kind: 'error'; readonly error: ProtocolError };

/**
 * A complete outcome as `complete` makes it; any other as the wire answers it (an error throws).
 * @internal
 */
export function answerOf<T>(outcome: OperationOutcome, complete: (value: unknown) => T): T {
  switch (outcome.kind) {
    case 'complete':
      return complete(outcome.value);
    case 'input_required':
      return { ...outcome.wire } as T;
    case 'tool_error':
      return { content: [{ type: 'text', text: outcome.message }], isError: true } as T;
    case 'error':
      throw outcome.error;
  }
}

/**
 * Runs one decorated operation for every entry point: builds the call record from an explicit
 * input, runs it through the operation's Nest pipeline (the application's guards and
 * interceptors, then the module's steps, the pipes and the method) and answers an explicit
 * outcome. What the module's innermost steps recorded decides the answer — a sealed input-required
 * round or a refusal of the module's own — whatever the application's outer interceptors made of
 * the result; an input-required result nothing recorded (returned by an operation that declares no
 * input, or replayed from a cache by an interceptor) is refused.
 * @internal
 */
@Injectable()
export class OperationRunner {
  private readonly logger = new Logger('McpModule');

  constructor(
    private readonly telemetry: McpTelemetry,
    @Inject(RATE_LIMIT_OPTIONS) private readonly rateLimits: RateLimitOptions,
    private readonly coreEvents: McpCoreEvents,
    private readonly partitions: CallerPartitions,
  ) {}

  /** Runs the operation's method. A cancelled task's method that gave up rejects with its error. */
  async run(input: OperationRunInput): Promise<OperationOutcome> {
    const call = this.callOf('operation', input, undefined);
    const handler = input.operation.handler;
    // Unobserved (no tracer or meter provider, no subscriber): nothing is made for telemetry.
    if (!this.telemetry.observing()) {
      if (!this.coreEvents.watched) return this.outcomeOf(call, input, handler);
      return this.published(call, input, handler);
    }
    const observation = this.telemetry.begin(observedCallOf(call));
    let outcome: OperationOutcome;
    let trace: string | undefined;
    try {
      outcome = await observation.within(async () => {
        const ran = await this.outcomeOf(call, input, handler);
        trace = this.telemetry.activeTrace();
        return ran;
      });
    } catch (error) {
      observation.end(observedRoundOf(call, undefined));
      publishCall(this.coreEvents, this.partitions, call, undefined, trace);
      throw error;
    }
    observation.end(observedRoundOf(call, outcome));
    const answered =
      outcome.kind === 'input_required' && trace !== undefined ? { ...outcome, trace } : outcome;
    publishCall(this.coreEvents, this.partitions, call, answered, trace);
    return answered;
  }

  /** Runs an untraced call and tells the core's observers how it ended (no extra await of its own). */
  private published(
    call: OperationCall,
    input: OperationRunInput,
    handler: OperationHandler,
  ): Promise<OperationOutcome> {
    return this.outcomeOf(call, input, handler).then(
      (outcome) => {
        publishCall(this.coreEvents, this.partitions, call, outcome, undefined);
        return outcome;
      },
      (error: unknown) => {
        publishCall(this.coreEvents, this.partitions, call, undefined, undefined);
        throw error;
      },
    );
  }

  /**
   * Runs the completer of `completion.argument` under the operation's enhancers; a complete outcome
   * holds the suggestions as the completer recorded them (an MCP-aware exception filter's own answer
   * otherwise), an operation without completers suggests nothing.
   */
  async complete(
    input: OperationRunInput,
    completion: CompletionRequest,
  ): Promise<OperationOutcome> {
    const handler = input.operation.completionHandler;
    if (!handler) return { kind: 'complete', value: [] };
    const call = this.callOf('completion', input, completion);
    const outcome = await this.outcomeOf(call, input, handler);
    const recorded = call.recorded;
    return outcome.kind === 'complete' && recorded?.kind === 'completion'
      ? { kind: 'complete', value: recorded.values }
      : outcome;
  }

  /**
   * Runs only the operation's guards (what authenticates the caller) and gives the context they
   * left: for deciding whose a task is. A refusing guard answers as it would for a call.
   */
  async authorize(input: OperationRunInput): Promise<McpOperationContext> {
    const call = this.callOf('guards', input, undefined);
    const handler = input.operation.guardsHandler;
    if (handler) {
      try {
        await handler(call);
      } catch (error) {
        const failure = this.failureOf(error, call);
        throw failure.type === 'error'
          ? failure.error
          : new ProtocolError(McpErrorCode.Forbidden, 'Forbidden');
      }
    }
    return call.context;
  }

  /**
   * What the operation's guards (the scope check of a scoped operation included) say of showing it
   * to this caller in a list: `shown` when they let a call through; `unauthenticated` when one
   * answered 401 (it may be the endpoint's authentication refusing the credential, or one entry's
   * guard: the list decides, see `McpOperationVisibility`); `hidden` for any other refusal or
   * error (one that is not a refusal is logged at debug level). Nothing else runs — no interceptor,
   * pipe or method — and nothing is thrown.
   */
  listingVerdict(input: OperationRunInput): MaybePromise<ListingVerdict> {
    const handler = input.operation.guardsHandler;
    // No guard: listed for everyone, and a list of such operations stays synchronous.
    if (!handler) return 'shown';
    return this.judge(handler, input);
  }

  /** Whether the operation's guards let this caller see it ({@link listingVerdict} `shown`). */
  visible(input: OperationRunInput): MaybePromise<boolean> {
    return andThen(this.listingVerdict(input), (verdict) => verdict === 'shown');
  }

  private async judge(
    handler: OperationHandler,
    input: OperationRunInput,
  ): Promise<ListingVerdict> {
    const call = this.callOf('visibility', input, undefined);
    try {
      await handler(call);
      return 'shown';
    } catch (error) {
      if (
        (error instanceof McpHttpRefusal && error.httpStatus === 401) ||
        (error instanceof HttpException && error.getStatus() === 401)
      )
        return 'unauthenticated';
      if (!(error instanceof HttpException) && !(error instanceof ProtocolError))
        this.logger.debug(
          `A guard of MCP ${call.profile.kind} "${clip(call.target)}" threw while a list was built; not listed`,
        );
      return 'hidden';
    }
  }

  private callOf(
    purpose: OperationCall['purpose'],
    input: OperationRunInput,
    completion: CompletionRequest | undefined,
  ): OperationCall {
    return new OperationCall({
      purpose,
      profile: input.operation.profile,
      target: input.target,
      params: input.params,
      args: input.args,
      http: input.http,
      detached: input.detached,
      sdk: input.sdk,
      task: input.task,
      completion,
      context: createOperationContext(input.sdk, input.target, input.http, input.task),
    });
  }

  private async outcomeOf(
    call: OperationCall,
    input: OperationRunInput,
    handler: OperationHandler,
  ): Promise<OperationOutcome> {
    let value: unknown;
    try {
      value = await handler(call);
    } catch (error) {
      const recorded = call.recorded;
      if (recorded?.kind === 'refused') return { kind: 'error', error: recorded.error };
      // A cancelled task's method gave up as asked: nothing to report, the task is cancelled.
      if (input.task?.signal.aborted) throw error;
      const failure = this.failureOf(error, call);
      return failure.type === 'error'
        ? { kind: 'error', error: failure.error }
        : { kind: 'tool_error', message: failure.message };
    }
    const recorded = call.recorded;
    if (recorded?.kind === 'refused') return { kind: 'error', error: recorded.error };
    if (recorded?.kind === 'input_required') return { kind: 'input_required', wire: recorded.wire };
    if (value instanceof McpInputRequiredResult || value instanceof McpSealedInputRequired) {
      this.logger.error(this.unrecordedMessage(call, value));
      return { kind: 'error', error: internalError() };
    }
    return { kind: 'complete', value };
  }

  private failureOf(error: unknown, call: OperationCall): OperationFailure {
    return mapOperationError(
      error,
      call.profile.kind,
      call.target,
      () => retryAfterMsOf(call),
      this.rateLimits.errors,
    );
  }

  private unrecordedMessage(
    call: OperationCall,
    value: McpInputRequiredResult | McpSealedInputRequired,
  ): string {
    const declaresInput =
      call.profile.declarations.length > 0 || call.profile.stateMode !== McpRequestStateMode.NONE;
    if (!declaresInput && value instanceof McpInputRequiredResult)
      return undeclaredInputMessage(call.context.method, call.target, value.inputRequests);
    return `MCP ${call.profile.kind} "${clip(call.target)}" (flow ${call.methodContext.flowId}) produced an input-required result its own handler did not return in this call (an interceptor cached or replaced it); refused`;
  }
}
