import type { Type } from '@nestjs/common';
import { McpInputRequest, type ElicitFormParams } from '../../input/mcp-input-request';
import type { McpElicitationResponse, McpInputResponse } from '../../input/mcp-input-response';
import {
  McpInputResponses,
  type McpTypedElicitationResponse,
} from '../../input/mcp-input-responses';
import type { McpReplayAsks } from '../../input/mcp-replay-asks.interface';
import type { AnsweredAsk } from './replay-execution';
import { ReplayUnavailableError } from './replay-unavailable.error';

/**
 * Where the asks of one call go: its ledger, or nowhere (`undefined`: not a replay operation).
 * @internal
 */
export type AskSink = () => { ask(request: McpInputRequest): Promise<AnsweredAsk> } | undefined;

/** Keeps the caller's rejection handled, like the promise it derives from. */
function derived<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** The {@link McpReplayAsks} of a request context, over `sink`. @internal */
export function replayAsks(sink: AskSink): McpReplayAsks {
  const asked = (name: string, build: () => McpInputRequest): Promise<AnsweredAsk> => {
    const execution = sink();
    if (!execution) throw new ReplayUnavailableError(name);
    return execution.ask(build());
  };
  const answerOf = <R extends McpInputResponse>(ask: Promise<AnsweredAsk>): Promise<R> =>
    derived(ask.then(({ answer }) => answer as R));

  function elicit(params: ElicitFormParams): Promise<McpElicitationResponse>;
  function elicit<T extends object>(
    params: ElicitFormParams,
    dto: Type<T>,
  ): Promise<McpTypedElicitationResponse<T>>;
  function elicit<T extends object>(params: ElicitFormParams, dto?: Type<T>) {
    const ask = asked('elicit', () => McpInputRequest.elicitForm(params));
    if (!dto) return answerOf<McpElicitationResponse>(ask);
    return derived(
      ask.then(
        // The fingerprint pins the slot to this form, so the answer is an elicitation.
        ({ key, answer }) =>
          McpInputResponses.from({ [key]: answer }).find(
            key,
            dto,
          ) as McpTypedElicitationResponse<T>,
      ),
    );
  }

  return {
    elicit,
    elicitUrl: (params) => answerOf(asked('elicitUrl', () => McpInputRequest.elicitUrl(params))),
    createMessage: (params) =>
      answerOf(asked('createMessage', () => McpInputRequest.createMessage(params))),
    listRoots: () => answerOf(asked('listRoots', () => McpInputRequest.listRoots())),
  };
}
