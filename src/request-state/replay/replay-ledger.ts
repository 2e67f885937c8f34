import { parse, stringify } from 'lossless-json';
import { parseInputResponse } from '../../input/input-response.parser';
import type { McpInputResponse } from '../../input/mcp-input-response';

/**
 * One ask of a replay-style flow: the question's fingerprint, and the answer once it arrived.
 * @internal
 */
export interface LedgerSlot {
  readonly fingerprint: string;
  readonly kind: McpInputResponse['kind'];
  readonly answer: McpInputResponse | undefined;
}

/**
 * Most asks one flow may make. Every ask is a slot carried in the state of every later round; a
 * conversation needing more belongs in a task, and a handler reaching this is asking in a loop.
 * @internal
 */
export const MAX_REPLAY_SLOTS = 64;

const KINDS: readonly McpInputResponse['kind'][] = ['elicitation', 'sampling', 'roots'];
const DIGEST = /^[A-Za-z0-9_-]{43}$/;

/** The input request key of slot `index` (0-based): `ask-1`, `ask-2`, … @internal */
export function slotKey(index: number): string {
  return `ask-${index + 1}`;
}

/**
 * Whether a key has the shape of a slot key, which replay-style operations keep for themselves.
 * @internal
 */
export function isSlotKey(key: string): boolean {
  return /^ask-[1-9]\d*$/.test(key);
}

/** An answer as the client sent it (the wire shape `parseInputResponse` reads back). */
function answerWire(answer: McpInputResponse): Record<string, unknown> {
  switch (answer.kind) {
    case 'elicitation':
      return { action: answer.action, content: answer.content };
    case 'sampling':
      return {
        role: answer.role,
        content: answer.content,
        model: answer.model,
        stopReason: answer.stopReason,
      };
    case 'roots':
      return { roots: answer.roots };
  }
}

/** The ledger as sealed: exact JSON text, so an answer of `3.50` comes back as `3.50`. @internal */
export function encodeLedger(slots: readonly LedgerSlot[]): string {
  return stringify(
    slots.map((slot) => ({
      f: slot.fingerprint,
      k: slot.kind,
      a: slot.answer === undefined ? undefined : answerWire(slot.answer),
    })),
  ) as string;
}

/** The slots of a sealed ledger, or `undefined` when it is not one this module wrote. @internal */
export function decodeLedger(text: string): LedgerSlot[] | undefined {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(raw) || raw.length > MAX_REPLAY_SLOTS) return undefined;
  const slots: LedgerSlot[] = [];
  for (const entry of raw as unknown[]) {
    if (entry === null || typeof entry !== 'object') return undefined;
    const { f, k, a } = entry as Record<string, unknown>;
    const kind = KINDS.find((known) => known === k);
    if (typeof f !== 'string' || !DIGEST.test(f) || kind === undefined) return undefined;
    const answer = a === undefined ? undefined : parseInputResponse(a, kind);
    if (a !== undefined && answer === undefined) return undefined;
    slots.push({ fingerprint: f, kind, answer });
  }
  return slots;
}
