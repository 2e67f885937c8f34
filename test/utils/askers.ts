import { rawRound } from './mcp';
import { openSession, sessionPost } from './session-clients';

/** One request by one caller in one protocol era: its HTTP status and body, as sent. */
export type Ask = (
  method: string,
  params: Record<string, unknown>,
) => Promise<{ status: number; text: string }>;

/** Asks as the caller `headers` name over plain 2026-07-28 rounds, each with JSON-RPC id `id`. */
export function modernAsker(url: URL, headers: Record<string, string>, id: number): Ask {
  return async (method, params) => {
    const { status, text } = await rawRound(url, method, params, { id, headers });
    return { status, text };
  };
}

/** Asks in a 2025-era session it opens first as the caller `headers` name, each request with id `id`. */
export async function sessionAsker(
  url: URL,
  headers: Record<string, string>,
  id: number,
): Promise<Ask> {
  const sessionId = await openSession(url, headers);
  return async (method, params) => {
    const { status, text } = await sessionPost(url, { id, method, params }, sessionId, headers);
    return { status, text };
  };
}
