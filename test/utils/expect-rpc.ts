import { resultText, type RawRoundResponse } from './mcp';

/** A JSON-RPC error as the wire carries it. */
export interface RpcErrorBody {
  code: number;
  message: string;
  data?: unknown;
}

/** The answer to a request state the server cannot open (tampered, replayed, foreign). */
export const INVALID_STATE = { code: -32602, message: 'Invalid request state' };

/** The answer that hides a server fault. */
export const INTERNAL_ERROR = { code: -32603, message: 'Internal error' };

/** The retryable answer while a store (Redis) cannot be reached. */
export const STORE_UNAVAILABLE = {
  code: -32000,
  message: 'Server busy: the store is unavailable',
  data: { retryAfterMs: 1_000 },
};

/**
 * The whole answer is HTTP `status` with the body `{ jsonrpc: '2.0', id, error }`, exactly: the
 * error's code, message and `data` (or none), echoing the request's id (`null` when it has none).
 */
export function expectErrorResponse(
  response: { status: number; text: string },
  status: number,
  id: number | string | null,
  error: RpcErrorBody,
): void {
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    throw new Error(`HTTP ${response.status} with a non-JSON body: ${response.text.slice(0, 200)}`);
  }
  expect({ status: response.status, body }).toEqual({
    status,
    body: { jsonrpc: '2.0', id, error },
  });
}

/**
 * The request was refused: answered with HTTP `status` and exactly `error` (code, message and
 * `data`, or none), and no result beside it.
 */
export function expectRefusal(
  response: RawRoundResponse,
  status: number,
  error: RpcErrorBody,
): void {
  expect({ status: response.status, error: response.body.error }).toEqual({ status, error });
  expect(response.body).not.toHaveProperty('result');
}

/**
 * The request was refused with -32021 (HTTP 400) for exactly the capabilities `required` lists, with
 * the fixed message naming them; no result, and so no input request or state, was sent.
 */
export function expectMissingCapabilities(
  response: RawRoundResponse,
  required: Record<string, unknown>,
): void {
  expect(response.status).toBe(400);
  expect(response.body.error).toEqual({
    code: -32021,
    message: expect.stringMatching(/^Missing required client capabilities: \S/),
    data: { requiredCapabilities: required },
  });
  expect(response.body).not.toHaveProperty('result');
}

/** The answer is HTTP 200 with an `input_required` result asking at least `inputRequests`. */
export function expectInputRequired(
  response: RawRoundResponse,
  inputRequests: Record<string, unknown>,
  more: Record<string, unknown> = {},
): void {
  expect(response.status).toBe(200);
  expect(response.body.error).toBeUndefined();
  expect(response.body.result).toMatchObject({
    resultType: 'input_required',
    inputRequests,
    ...more,
  });
}

/**
 * Runs `action` and asserts that `observe()` reads the same after it as before (the handler's
 * side effects did not happen); resolves with what `action` resolved with.
 */
export async function expectNoSideEffects<T>(
  observe: () => unknown,
  action: () => Promise<T>,
): Promise<T> {
  const before: unknown = await observe();
  const outcome = await action();
  expect(await observe()).toEqual(before);
  return outcome;
}

/**
 * Of concurrent presentations of one single-use state: exactly one completed, with the text
 * `text`, and every other was refused with -32602 Invalid request state.
 */
export function expectExactlyOneAccepted(
  responses: readonly RawRoundResponse[],
  text: string,
): void {
  const done = responses.filter((response) => response.body.result !== undefined);
  expect(done).toHaveLength(1);
  expect(resultText(done[0])).toBe(text);
  const refused = responses.filter((response) => response.body.error !== undefined);
  expect(refused).toHaveLength(responses.length - 1);
  for (const response of refused)
    expect(response.body.error).toEqual({ code: -32602, message: 'Invalid request state' });
}
