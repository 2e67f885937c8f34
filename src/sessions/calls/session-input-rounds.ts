import { Inject, Injectable } from '@nestjs/common';
import type { ProtocolError, ServerContext } from '@modelcontextprotocol/server';
import {
  OperationRunner,
  type OperationOutcome,
  type OperationRunInput,
} from '../../pipeline/operation-runner';
import { parseWithExactNumbers } from '../../util/exact-number.parser';
import { SESSION_OPTIONS, type SessionOptions } from '../session.options';
import {
  inputRequestFailed,
  inputRequestTimedOut,
  inputRoundsExceeded,
  requestStreamLost,
  tooManyPendingRequests,
} from '../wire/session-errors';
import type { AwaitedAnswer } from './session-answers';
import type { SessionChannel } from './session-channel';

/** The requests of an input-required round, by key, as the wire carries them. */
type InputRequests = Readonly<Record<string, unknown>>;

type Asked =
  | { readonly ok: true; readonly responses: Record<string, unknown> }
  | { readonly ok: false; readonly error: ProtocolError };

/**
 * The id the runner sees in round `round` of a call: the client's own in the first, a derived one
 * after. Each round is a run of its own, and sealed state refuses a state presented by the
 * request that emitted it, so no two rounds may share an id.
 */
function roundId(id: string | number, round: number): string | number {
  return round === 1 ? id : `${String(id)}#${round}`;
}

/**
 * Serves a 2025-era call through the {@link OperationRunner}: runs it, and while its outcome asks
 * for input, sends each input request to the client as a real server-to-client request over the
 * session, waits for the answers and runs it again with them and the round's sealed state — the
 * same handler, declarations, gating and state checks as a 2026-07-28 retry. Rounds per call and
 * the wait for each answer are bounded; a client that does not answer ends its call with a
 * documented error.
 * @internal
 */
@Injectable()
export class SessionInputRounds {
  constructor(
    private readonly runner: OperationRunner,
    @Inject(SESSION_OPTIONS) private readonly options: SessionOptions,
  ) {}

  /** Runs `first` to its final outcome, asking over `channel` between rounds. */
  async run(first: OperationRunInput, channel: SessionChannel): Promise<OperationOutcome> {
    const id = first.sdk.mcpReq.id;
    let input = first;
    for (let round = 1; ; round++) {
      const outcome = await this.runner.run(input);
      if (outcome.kind !== 'input_required') return outcome;
      if (round >= this.options.maxInputRounds)
        return { kind: 'error', error: inputRoundsExceeded(this.options.maxInputRounds) };
      const asked = await this.ask(outcome.wire.inputRequests ?? {}, channel);
      if (!asked.ok) return { kind: 'error', error: asked.error };
      const { inputResponses: _previous, requestState: _state, ...params } = input.params;
      const state = outcome.wire.requestState;
      input = {
        ...input,
        params: {
          ...params,
          inputResponses: asked.responses,
          ...(state !== undefined && { requestState: state }),
        },
        sdk: withId(input.sdk, roundId(id, round + 1)),
      };
    }
  }

  /**
   * Asks every request of a round at once and collects the answers by key; the first request left
   * unanswered (timeout, error, client gone) ends the call.
   */
  async ask(
    requests: InputRequests,
    channel: SessionChannel,
    relatedTaskId?: string,
  ): Promise<Asked> {
    const keys = Object.keys(requests);
    const answers = await Promise.all(
      keys.map((key) => {
        const { method, params } = requests[key] as { method: string; params?: unknown };
        return channel.request(method, params ?? {}, relatedTaskId);
      }),
    );
    const responses: Record<string, unknown> = {};
    for (const [index, key] of keys.entries()) {
      const read = this.read(key, answers[index] as AwaitedAnswer);
      if (!read.ok) return read;
      Object.defineProperty(responses, key, { value: read.result, enumerable: true });
    }
    return { ok: true, responses };
  }

  private read(
    key: string,
    answer: AwaitedAnswer,
  ): { ok: true; result: unknown } | { ok: false; error: ProtocolError } {
    if (answer.kind === 'unanswered') {
      if (answer.reason === 'too_many_pending')
        return { ok: false, error: tooManyPendingRequests(this.options.maxPendingRequests) };
      // The asking request is gone (client away, call cancelled, session closed): no one to tell.
      if (answer.reason === 'aborted') return { ok: false, error: requestStreamLost() };
      return { ok: false, error: inputRequestTimedOut(key, this.options.answerTimeoutMs) };
    }
    let message: { result?: unknown; error?: { code?: unknown } };
    try {
      // Numbers as the client wrote them: an answer of 3.50 reaches the handler as 3.50.
      message = parseWithExactNumbers(answer.response) as typeof message;
    } catch {
      return { ok: false, error: inputRequestFailed(key, undefined) };
    }
    if (message?.error !== undefined || message?.result === undefined)
      return { ok: false, error: inputRequestFailed(key, message?.error?.code) };
    return { ok: true, result: message.result };
  }
}

function withId(sdk: ServerContext, id: string | number): ServerContext {
  return { ...sdk, mcpReq: { ...sdk.mcpReq, id } } as ServerContext;
}
