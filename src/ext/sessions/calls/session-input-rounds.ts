import { Inject, Injectable } from '@nestjs/common';
import type { ProtocolError, ServerContext } from '@modelcontextprotocol/server';
import { MCP_META_KEYS } from '../../../kit/mcp.constants';
import { parseWithExactNumbers } from '../../../kit/exact-number.parser';
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
import { UrlElicitations } from './url-elicitations';
import {
  McpTelemetry,
  OperationRunner,
  nextRoundInput,
  type ClientRequestOutcome,
  type ObservedClientRequest,
  type OperationOutcome,
  type OperationRunInput,
} from '../../../extension-api';

/** The requests of an input-required round, by key, as the wire carries them. */
type InputRequests = Readonly<Record<string, unknown>>;

type Asked =
  | { readonly ok: true; readonly responses: Record<string, unknown> }
  | { readonly ok: false; readonly error: ProtocolError };

type Read = ({ ok: true; result: unknown } | { ok: false; error: ProtocolError }) & {
  /** What the request's span says of it: never the answer's content. */
  readonly outcome: ClientRequestOutcome;
  readonly errorType?: string;
};

/** Where the requests of a round are observed: the asking round's span and the session. */
type AskedFrom = Omit<ObservedClientRequest, 'method'>;

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
    private readonly telemetry: McpTelemetry,
  ) {}

  /** Runs `first` to its final outcome, asking over `channel` between rounds. */
  async run(first: OperationRunInput, channel: SessionChannel): Promise<OperationOutcome> {
    const id = first.sdk.mcpReq.id;
    const urls = new UrlElicitations();
    let input = first;
    for (let round = 1; ; round++) {
      const outcome = await this.runner.run(input);
      const next = outcome.kind === 'input_required' ? outcome.wire.inputRequests : undefined;
      for (const elicitationId of urls.completedBy(next))
        channel.notify('notifications/elicitation/complete', { elicitationId });
      if (outcome.kind !== 'input_required') return outcome;
      if (round >= this.options.maxInputRounds)
        return { kind: 'error', error: inputRoundsExceeded(this.options.maxInputRounds) };
      const asked = await this.ask(
        urls.idsFor(outcome.wire.inputRequests ?? {}),
        channel,
        undefined,
        outcome.trace === undefined ? undefined : askedFrom(input.sdk, outcome.trace),
      );
      if (!asked.ok) return { kind: 'error', error: asked.error };
      input = nextRoundInput(input, id, round + 1, asked.responses, outcome.wire.requestState);
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
    from?: AskedFrom,
  ): Promise<Asked> {
    const keys = Object.keys(requests);
    const reads = await Promise.all(
      keys.map(async (key) => {
        const { method, params } = requests[key] as { method: string; params?: unknown };
        const span = from && this.telemetry.beginClientRequest({ ...from, method });
        const read = this.read(key, await channel.request(method, params ?? {}, relatedTaskId));
        span?.end(read.outcome, read.errorType);
        return read;
      }),
    );
    const responses: Record<string, unknown> = {};
    for (const [index, key] of keys.entries()) {
      const read = reads[index] as Read;
      if (!read.ok) return { ok: false, error: read.error };
      Object.defineProperty(responses, key, { value: read.result, enumerable: true });
    }
    return { ok: true, responses };
  }

  private read(key: string, answer: AwaitedAnswer): Read {
    if (answer.kind === 'unanswered') {
      if (answer.reason === 'too_many_pending')
        return {
          ok: false,
          error: tooManyPendingRequests(this.options.maxPendingRequests),
          outcome: 'refused',
        };
      // The asking request is gone (client away, call cancelled, session closed): no one to tell.
      if (answer.reason === 'aborted')
        return { ok: false, error: requestStreamLost(), outcome: 'aborted' };
      return {
        ok: false,
        error: inputRequestTimedOut(key, this.options.answerTimeoutMs),
        outcome: 'timed_out',
      };
    }
    let message: { result?: unknown; error?: { code?: unknown } };
    try {
      // Numbers as the client wrote them: an answer of 3.50 reaches the handler as 3.50.
      message = parseWithExactNumbers(answer.response) as typeof message;
    } catch {
      return { ok: false, error: inputRequestFailed(key, undefined), outcome: 'error' };
    }
    if (message?.error !== undefined || message?.result === undefined) {
      const code = message?.error?.code;
      return {
        ok: false,
        error: inputRequestFailed(key, code),
        outcome: 'error',
        ...(typeof code === 'number' && { errorType: String(code) }),
      };
    }
    return { ok: true, result: message.result, outcome: answeredOutcome(message.result) };
  }
}

/** An elicitation's action as its span says it; any other answer is `answered`. */
function answeredOutcome(result: unknown): ClientRequestOutcome {
  switch ((result as { action?: unknown } | null)?.action) {
    case 'accept':
      return 'accepted';
    case 'decline':
      return 'declined';
    case 'cancel':
      return 'cancelled';
    default:
      return 'answered';
  }
}

function askedFrom(sdk: ServerContext, parent: string): AskedFrom {
  return {
    parent,
    sessionId: (sdk as { sessionId?: string }).sessionId,
    protocolVersion: (sdk.mcpReq.envelope as Record<string, unknown> | undefined)?.[
      MCP_META_KEYS.protocolVersion
    ] as string | undefined,
  };
}
