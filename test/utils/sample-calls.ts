import { rawRound, rawToolCall, resultText, stateOf, type RawRoundResponse } from './mcp';

/** The sample's `transfer_funds` arguments most suites send. */
export const TRANSFER = { amount: '12.50', to: 'bob' };

/** The `inputResponses` that approve it: the form's `approval` answer, accepted. */
export const APPROVE = { approval: { action: 'accept', content: { approve: true } } };

/**
 * One round of the sample's `approve_expense` by `user` (the sample takes the bearer token for the
 * user's name): the first round, or a later one continuing `requestState` with `inputResponses`.
 */
export function approveExpenseRound(
  url: URL,
  user: string,
  expense: Record<string, unknown>,
  requestState?: string,
  inputResponses?: unknown,
): Promise<RawRoundResponse> {
  return rawToolCall(url, 'approve_expense', expense, {
    capabilities: { elicitation: {} },
    headers: { Authorization: `Bearer ${user}` },
    requestState,
    inputResponses,
  });
}

/** The form capability the `transfer_funds` rounds below declare. */
const TRANSFER_FORM = { elicitation: {} };

/** The first round of the sample's `transfer_funds` ({@link TRANSFER}) on `url`: it asks for approval. */
export function beginTransfer(url: URL): Promise<RawRoundResponse> {
  return rawToolCall(url, 'transfer_funds', TRANSFER, { capabilities: TRANSFER_FORM });
}

/** The second round: `state` presented on `url` with the approval ({@link APPROVE}). */
export function completeTransfer(url: URL, state: string): Promise<RawRoundResponse> {
  return rawToolCall(url, 'transfer_funds', TRANSFER, {
    capabilities: TRANSFER_FORM,
    requestState: state,
    inputResponses: APPROVE,
  });
}

/** Both rounds, begun on `from` and completed on `to`: the state sealed between and the result text. */
export async function transferAcross(
  from: URL,
  to: URL = from,
): Promise<{ state: string; text: string }> {
  const state = stateOf(await beginTransfer(from));
  return { state, text: resultText(await completeTransfer(to, state)) };
}

/** The sample's `slow_compute` started as a task on `url` by a client that takes tasks; its id. */
export async function startSlowComputeTask(
  url: URL,
  args: { seconds: number; label?: string },
): Promise<string> {
  const created = await rawRound(
    url,
    'tools/call',
    { name: 'slow_compute', arguments: args },
    { capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
  );
  const taskId = (created.body.result as { taskId?: string } | undefined)?.taskId;
  expect(typeof taskId).toBe('string');
  return taskId as string;
}
