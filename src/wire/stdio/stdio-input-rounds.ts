import { ProtocolError } from '@modelcontextprotocol/server';
import { clip } from '../../kit/clip';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { parseWithExactNumbers } from '../../kit/exact-number.parser';
import {
  OperationRunner,
  type OperationOutcome,
  type OperationRunInput,
} from '../../pipeline/operation-runner';
import { nextRoundInput } from '../../pipeline/next-round-input';
import type { StdioAnswer } from './stdio-answers';

/** How a 2025-era stdio call asks its client: server-to-client requests over the pipe. @internal */
export interface StdioAsking {
  request(method: string, params: unknown): Promise<StdioAnswer>;
}

/** What bounds the rounds of one call. @internal */
export interface StdioRoundLimits {
  readonly maxInputRounds: number;
  readonly answerTimeoutMs: number;
}

/**
 * Serves a 2025-era call over stdio through the {@link OperationRunner}, as a 2025-era session
 * does over HTTP: runs it, and while its outcome asks for input, sends each input request to the
 * client as a server-to-client request on the pipe (elicitation, sampling, roots), waits for the
 * answers and runs it again with them and the round's sealed state under a derived request id —
 * the same handler, declarations, gating and state checks as a 2026-07-28 retry. The rounds and
 * the wait for each answer are bounded, and end with the errors a session's call ends with.
 * @internal
 */
export class StdioInputRounds {
  constructor(
    private readonly runner: OperationRunner,
    private readonly limits: StdioRoundLimits,
  ) {}

  async run(first: OperationRunInput, asking: StdioAsking): Promise<OperationOutcome> {
    const id = first.sdk.mcpReq.id;
    let input = first;
    for (let round = 1; ; round++) {
      const outcome = await this.runner.run(input);
      if (outcome.kind !== 'input_required') return outcome;
      if (round >= this.limits.maxInputRounds)
        return {
          kind: 'error',
          error: new ProtocolError(
            McpErrorCode.InputRoundsExceeded,
            `The call still required input after ${this.limits.maxInputRounds} rounds`,
            { maxInputRounds: this.limits.maxInputRounds },
          ),
        };
      const requests = (outcome.wire.inputRequests ?? {}) as Record<string, unknown>;
      const asked = await this.ask(requests, asking);
      if (asked instanceof ProtocolError) return { kind: 'error', error: asked };
      input = nextRoundInput(input, id, round + 1, asked, outcome.wire.requestState);
    }
  }

  /** Every request of a round at once; the answers by key, or the first one that failed. */
  private async ask(
    requests: Record<string, unknown>,
    asking: StdioAsking,
  ): Promise<Record<string, unknown> | ProtocolError> {
    const keys = Object.keys(requests);
    const answers = await Promise.all(
      keys.map((key) => {
        const { method, params } = requests[key] as { method: string; params?: unknown };
        return asking.request(method, params ?? {});
      }),
    );
    const responses: Record<string, unknown> = {};
    for (const [index, key] of keys.entries()) {
      const read = this.read(key, answers[index] as StdioAnswer);
      if (read instanceof ProtocolError) return read;
      Object.defineProperty(responses, key, { value: read, enumerable: true });
    }
    return responses;
  }

  private read(key: string, answer: StdioAnswer): unknown {
    if (answer.kind === 'unanswered')
      return answer.reason === 'aborted'
        ? new ProtocolError(
            McpErrorCode.RequestStreamLost,
            'The stream of this request was lost before its answer; the request did not complete',
          )
        : new ProtocolError(
            McpErrorCode.InputRequestTimedOut,
            `The client did not answer input request "${clip(key)}" within ${this.limits.answerTimeoutMs} ms`,
            { key: clip(key), timeoutMs: this.limits.answerTimeoutMs },
          );
    let message: { result?: unknown; error?: { code?: unknown } } | undefined;
    try {
      // Numbers as the client wrote them: an answer of 3.50 reaches the handler as 3.50.
      message = parseWithExactNumbers(answer.response) as typeof message;
    } catch {
      message = undefined;
    }
    if (message?.error !== undefined || message?.result === undefined) {
      const code = message?.error?.code;
      return new ProtocolError(
        McpErrorCode.InputRequestFailed,
        `The client could not answer input request "${clip(key)}"`,
        typeof code === 'number' ? { key: clip(key), code } : { key: clip(key) },
      );
    }
    return message.result;
  }
}
