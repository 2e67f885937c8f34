import {
  Inject,
  Injectable,
  Logger,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { ProtocolError } from '@modelcontextprotocol/server';
import { catchError, map, of, throwError, type Observable } from 'rxjs';
import { McpErrorCode } from '../errors/mcp-error-codes';
import { internalError } from '../errors/internal-error';
import { McpInputRequiredResult } from '../input/mcp-input-required.result';
import type { ResolvedMcpOptions } from '../mcp-options.resolver';
import { MCP_RESOLVED_OPTIONS } from '../mcp-resolved-options.token';
import { clip } from '../protocol/clip';
import { operationCallOf, type McpOperationCall } from '../protocol/mcp-operation-call';
import { INVALID_REQUEST_STATE_MESSAGE } from '../state/mcp-request-state.interceptor';
import { ReplayExecution } from './replay-execution';
import { decodeLedger, isSlotKey, MAX_REPLAY_SLOTS } from './replay-ledger';

/** What the handler threw, kept apart from what it returned. */
class Thrown {
  constructor(readonly error: unknown) {}
}

/**
 * Runs a `replay: true` operation against its ledger: before the handler, resumes the ledger the
 * state carried with this round's answers; after it, ends the round with the unanswered asks
 * (whatever the handler made of their rejection), refuses a changed question with -32602, and
 * leaves the ledger on the call for the state step to seal.
 *
 * Innermost of the input steps: inside state protection, which opened the ledger and seals it, and
 * inside capability gating, which checks the asks exactly like a returned input-required result.
 * @internal
 */
@Injectable()
export class McpReplayInterceptor implements NestInterceptor {
  private readonly logger = new Logger('McpRequestState');

  constructor(@Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const call = operationCallOf(context.getArgs());
    if (!call || call.purpose !== 'operation' || !call.profile.replay) return next.handle();
    const slots = call.openedLedger === undefined ? [] : decodeLedger(call.openedLedger);
    if (!slots) {
      this.logger.warn(
        `MCP ${call.context.method} "${clip(call.context.target)}" (request ${clip(call.context.requestId)}): request state rejected: malformed replay ledger`,
      );
      return throwError(
        () => new ProtocolError(McpErrorCode.InvalidParams, INVALID_REQUEST_STATE_MESSAGE),
      );
    }
    const execution = ReplayExecution.resume(slots, call.responses);
    call.replay = execution;
    return next.handle().pipe(
      catchError((error: unknown) => of(new Thrown(error))),
      map((outcome) => this.settle(call, execution, outcome)),
    );
  }

  private settle(call: McpOperationCall, execution: ReplayExecution, outcome: unknown): unknown {
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
