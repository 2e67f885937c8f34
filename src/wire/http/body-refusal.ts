import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import type { JsonBodyLimits } from './json-body-limits';
import type { JsonStructureProblem } from './json-structure.scanner';

/** How a body the module will not parse is answered. @internal */
export interface BodyRefusal {
  readonly status: number;
  readonly code: number;
  readonly message: string;
  readonly data?: Record<string, unknown>;
}

function tooLarge(limit: string, max: number, what: string): BodyRefusal {
  return {
    status: 413,
    code: McpErrorCode.InvalidRequest,
    message: `Request body too large: ${what}`,
    data: { limit, max },
  };
}

/** The documented answer to a body that breaks a limit (see `docs/errors.md`). @internal */
export function bodyRefusal(
  problem: JsonStructureProblem | 'unparsable',
  limits: JsonBodyLimits,
): BodyRefusal {
  switch (problem) {
    case 'unparsable':
      return { status: 400, code: McpErrorCode.ParseError, message: 'Parse error' };
    case 'too_deep':
      return {
        status: 400,
        code: McpErrorCode.ParseError,
        message: 'Parse error: JSON nested too deeply',
      };
    case 'number_out_of_bounds':
      return {
        status: 400,
        code: McpErrorCode.InvalidParams,
        message: 'Invalid params: a number is too long or its exponent too large',
      };
    case 'too_many_nodes':
      return tooLarge('json.maxNodes', limits.maxNodes, `more than ${limits.maxNodes} JSON values`);
    case 'object_too_large':
      return tooLarge(
        'json.maxObjectKeys',
        limits.maxObjectKeys,
        `an object with more than ${limits.maxObjectKeys} members`,
      );
    case 'array_too_long':
      return tooLarge(
        'json.maxArrayLength',
        limits.maxArrayLength,
        `an array with more than ${limits.maxArrayLength} items`,
      );
    case 'string_too_long':
      return tooLarge(
        'json.maxStringLength',
        limits.maxStringLength,
        `a string longer than ${limits.maxStringLength} characters`,
      );
  }
}
