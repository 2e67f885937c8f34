import type { OperationRunInput } from './operation-runner';

/**
 * The input of round `round` of a call the server serves round by round itself (a session, stdio):
 * the previous round's input with the client's `inputResponses` and the `requestState` that round
 * emitted (if any) in place of what it carried, under the id `<first round's id>#<round>`. Each
 * round is a run of its own, and sealed state refuses a state presented by the request that
 * emitted it, so no two rounds may share an id.
 * @internal
 */
export function nextRoundInput(
  previous: OperationRunInput,
  firstId: string | number,
  round: number,
  inputResponses: Readonly<Record<string, unknown>>,
  requestState: string | undefined,
): OperationRunInput {
  const { inputResponses: _previous, requestState: _state, ...params } = previous.params;
  return {
    ...previous,
    params: {
      ...params,
      inputResponses,
      ...(requestState !== undefined && { requestState }),
    },
    sdk: {
      ...previous.sdk,
      mcpReq: { ...previous.sdk.mcpReq, id: `${String(firstId)}#${round}` },
    } as OperationRunInput['sdk'],
  };
}
