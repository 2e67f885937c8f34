import { rawToolCall, type RawRoundResponse } from './mcp';

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
