import { Inject, Injectable, Logger } from '@nestjs/common';
import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { internalError } from '../../kit/errors/internal-error';
import { INVALID_REQUEST_STATE_MESSAGE } from '../../kit/errors/invalid-request-state.message';
import type { McpInputResponses } from '../../input/mcp-input-responses';
import { McpInputRequiredResult } from '../../input/mcp-input-required.result';
import { REQUEST_STATE_LIMITS, type RequestStateLimits } from '../sealing/request-state-limits';
import { clip } from '../../kit/clip';
import type { McpJsonValue } from '../../kit/json-value';
import { ReplayExecution } from './replay-execution';
import { decodeLedger, isSlotKey, MAX_REPLAY_SLOTS } from './replay-ledger';

/** Which call a replay step serves, for its log lines. @internal */
export interface ReplayCallSite {
  readonly method: string;
  readonly target: string;
  readonly requestId: string | number;
}

/**
 * How a replay round ended: with what the round answers (`value`), with the handler's own error
 * (`thrown`, the application's to report), or refused by the step itself (`refused`).
 * @internal
 */
export type ReplaySettlement =
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'thrown'; readonly error: unknown }
  | { readonly kind: 'refused'; readonly error: ProtocolError };

/**
 * The replay step of a `replay: true` operation, in two halves that state protection runs.
 * {@link begin}, once the round's state is open: resumes the ledger it carried with this round's
 * answers. {@link settle}, with what the handler returned or threw: ends the round with the
 * unanswered asks (whatever the handler made of their rejection), refuses a changed question with
 * -32602, and leaves the ledger in the execution for state protection to seal. Capability gating
 * checks the asks exactly like a returned input-required result.
 * @internal
 */
@Injectable()
export class McpReplayStep {
  private readonly logger = new Logger('McpRequestState');

  constructor(@Inject(REQUEST_STATE_LIMITS) private readonly limits: RequestStateLimits) {}

  /** Resumes the ledger before the handler runs; a ledger this module did not write is -32602. */
  begin(
    site: ReplayCallSite,
    ledger: string | undefined,
    responses: McpInputResponses,
  ): ReplayExecution {
    const slots = ledger === undefined ? [] : decodeLedger(ledger);
    if (!slots) {
      this.logger.warn(
        `${where(site)} (request ${clip(site.requestId)}): request state rejected: malformed replay ledger`,
      );
      throw new ProtocolError(McpErrorCode.InvalidParams, INVALID_REQUEST_STATE_MESSAGE);
    }
    return ReplayExecution.resume(slots, responses);
  }

  /** What the round answers, from what the handler `returned` (kept or rejected). */
  async settle(
    site: ReplayCallSite,
    execution: ReplayExecution,
    frameworkState: McpJsonValue | undefined,
    returned: Promise<unknown>,
  ): Promise<ReplaySettlement> {
    let outcome: ReplaySettlement;
    try {
      outcome = { kind: 'value', value: await returned };
    } catch (error) {
      outcome = { kind: 'thrown', error };
    }
    execution.close();
    const violation = execution.contractViolation;
    if (violation) {
      this.logger.warn(`${where(site)}: ${violation.message}`);
      return { kind: 'refused', error: violation };
    }
    if (execution.overflow) {
      this.logger.error(`${where(site)} asked more than ${MAX_REPLAY_SLOTS} questions in one flow`);
      return { kind: 'refused', error: internalError() };
    }
    if (execution.pendingAsks.size > 0) return this.roundEnd(execution, frameworkState);
    if (
      outcome.kind === 'value' &&
      outcome.value instanceof McpInputRequiredResult &&
      [...outcome.value.inputRequests.keys()].some(isSlotKey)
    ) {
      this.logger.error(
        `${where(site)} returned input request keys of the form "ask-<n>", kept for ctx asks`,
      );
      return { kind: 'refused', error: internalError() };
    }
    return outcome;
  }

  /** The -32602 for answers too large to carry to the next round. */
  answersTooLarge(): ProtocolError {
    return new ProtocolError(
      McpErrorCode.InvalidParams,
      'Invalid params: the answers so far are too large to carry to the next round',
      { limit: this.limits.maxDecodedBytes },
    );
  }

  /** The unanswered asks as one input-required result, carrying the handler's own state on. */
  private roundEnd(
    execution: ReplayExecution,
    frameworkState: McpJsonValue | undefined,
  ): ReplaySettlement {
    const ledger = execution.encodedLedger() as string;
    // The answers are the client's: too many bytes to carry is its error, not the server's. (What
    // fits here may still not fit once sealed, escaped and encoded: sealing says so the same way.)
    if (Buffer.byteLength(ledger) > this.limits.maxDecodedBytes)
      return { kind: 'refused', error: this.answersTooLarge() };
    const builder = McpInputRequiredResult.builder();
    for (const [key, request] of execution.pendingAsks) builder.inputRequest(key, request);
    if (frameworkState !== undefined) builder.frameworkState(frameworkState);
    return { kind: 'value', value: builder.build() };
  }
}

function where(site: ReplayCallSite): string {
  return `MCP ${site.method} "${clip(site.target)}"`;
}
