import { Inject, Injectable, Logger } from '@nestjs/common';
import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../errors/mcp-error-codes';
import { internalError } from '../errors/internal-error';
import { McpInputRequiredResult } from '../input/mcp-input-required.result';
import type { ResolvedMcpOptions } from '../mcp-options.resolver';
import { MCP_RESOLVED_OPTIONS } from '../mcp-resolved-options.token';
import { clip } from '../util/clip';
import type { McpOperationCall } from '../pipeline/mcp-operation-call';
import { INVALID_REQUEST_STATE_MESSAGE } from '../pipeline/request-state.protection';
import { ReplayExecution } from './replay-execution';
import { decodeLedger, isSlotKey, MAX_REPLAY_SLOTS } from './replay-ledger';

/** What the handler threw, kept apart from what it returned. */
class Thrown {
  constructor(readonly error: unknown) {}
}

/**
 * The replay step of a `replay: true` operation, in two halves. {@link begin}, once state
 * protection has opened the round: resumes the ledger the state carried with this round's answers.
 * {@link settle}, with what the handler returned or threw: ends the round with the unanswered asks
 * (whatever the handler made of their rejection), refuses a changed question with -32602, and
 * leaves the ledger on the call for state protection to seal.
 *
 * It sits inside state protection, which opened the ledger and seals it, and inside capability
 * gating, which checks the asks exactly like a returned input-required result.
 * @internal
 */
@Injectable()
export class McpReplayStep {
  private readonly logger = new Logger('McpRequestState');

  constructor(@Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions) {}

  /** Resumes the ledger before the handler runs; a ledger this module did not write is -32602. */
  begin(call: McpOperationCall): void {
    const slots = call.openedLedger === undefined ? [] : decodeLedger(call.openedLedger);
    if (!slots) {
      this.logger.warn(
        `MCP ${call.context.method} "${clip(call.context.target)}" (request ${clip(call.context.requestId)}): request state rejected: malformed replay ledger`,
      );
      throw new ProtocolError(McpErrorCode.InvalidParams, INVALID_REQUEST_STATE_MESSAGE);
    }
    call.replay = ReplayExecution.resume(slots, call.responses);
  }

  /** What the round answers, from what the handler `returned` (a value or a promise, kept or rejected). */
  async settle(call: McpOperationCall, returned: unknown): Promise<unknown> {
    let outcome: unknown;
    try {
      outcome = await returned;
    } catch (error) {
      outcome = new Thrown(error);
    }
    const execution = call.replay as ReplayExecution;
    execution.close();
    const where = `MCP ${call.context.method} "${clip(call.context.target)}"`;
    const violation = execution.contractViolation;
    if (violation) {
      this.logger.warn(`${where}: ${violation.message}`);
      throw violation;
    }
    if (execution.overflow) {
      this.logger.error(`${where} asked more than ${MAX_REPLAY_SLOTS} questions in one flow`);
      throw internalError();
    }
    if (execution.pendingAsks.size > 0) return this.roundEnd(call, execution);
    if (outcome instanceof Thrown) throw outcome.error;
    if (
      outcome instanceof McpInputRequiredResult &&
      [...outcome.inputRequests.keys()].some(isSlotKey)
    ) {
      this.logger.error(
        `${where} returned input request keys of the form "ask-<n>", kept for ctx asks`,
      );
      throw internalError();
    }
    return outcome;
  }

  /** The unanswered asks as one input-required result, carrying the handler's own state on. */
  private roundEnd(call: McpOperationCall, execution: ReplayExecution): McpInputRequiredResult {
    const ledger = execution.encodedLedger() as string;
    // The answers are the client's: too many bytes to carry is its error, not the server's.
    if (Buffer.byteLength(ledger) > this.options.requestState.maxDecodedBytes) {
      throw new ProtocolError(
        McpErrorCode.InvalidParams,
        'Invalid params: the answers so far are too large to carry to the next round',
        { limit: this.options.requestState.maxDecodedBytes },
      );
    }
    const builder = McpInputRequiredResult.builder();
    for (const [key, request] of execution.pendingAsks) builder.inputRequest(key, request);
    if (call.frameworkState !== undefined) builder.frameworkState(call.frameworkState);
    return builder.build();
  }
}
