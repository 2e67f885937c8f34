import { parseWithExactNumbers } from '../../kit/exact-number.parser';
import type { JsonBodyLimits } from './json-body-limits';
import { scanJsonStructure, type JsonStructureProblem } from './json-structure.scanner';

/** The outcome of parsing a request body. @internal */
export type ParsedJsonBody =
  | {
      ok: true;
      /** The message as `JSON.parse` reads it (what the SDK and handlers receive). */
      plain: unknown;
      /**
       * `params.inputResponses` with every number as a `LosslessNumber` keeping its exact text,
       * when the message carries input responses.
       */
      exactInputResponses: unknown;
    }
  | { ok: false; reason: 'unparsable' }
  | { ok: false; reason: JsonStructureProblem };

function inputResponsesOf(message: unknown): unknown {
  if (message === null || typeof message !== 'object') return undefined;
  const params = (message as { params?: unknown }).params;
  if (params === null || typeof params !== 'object') return undefined;
  return Object.hasOwn(params, 'inputResponses')
    ? (params as { inputResponses: unknown }).inputResponses
    : undefined;
}

/** Whether a parsed JSON value holds a number anywhere (bounded: the body passed the structure scan). */
function containsNumber(value: unknown): boolean {
  if (typeof value === 'number') return true;
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(containsNumber);
  for (const key in value) {
    if (Object.hasOwn(value, key) && containsNumber((value as Record<string, unknown>)[key]))
      return true;
  }
  return false;
}

/**
 * Parses a JSON request body within the limits: the shape is checked first in one cheap pass,
 * then the text is parsed natively. Only when the message carries input responses with numbers
 * (which must keep their exact digits) is it parsed a second time, natively too, with every number kept
 * as its exact text — a body the structure check has already bounded. `__proto__` keys stay
 * ordinary data in both parses.
 * @internal
 */
export function parseJsonBody(text: string, limits: JsonBodyLimits): ParsedJsonBody {
  const problem = scanJsonStructure(text, limits);
  if (problem) return { ok: false, reason: problem };
  let plain: unknown;
  try {
    plain = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'unparsable' };
  }
  const inputResponses = inputResponsesOf(plain);
  // Only an object of responses has numbers worth keeping exact; anything else is refused later.
  if (
    inputResponses === null ||
    typeof inputResponses !== 'object' ||
    Array.isArray(inputResponses)
  ) {
    return { ok: true, plain, exactInputResponses: undefined };
  }
  // Without numbers the native parse is already exact.
  if (!containsNumber(inputResponses))
    return { ok: true, plain, exactInputResponses: inputResponses };
  return { ok: true, plain, exactInputResponses: inputResponsesOf(parseWithExactNumbers(text)) };
}
