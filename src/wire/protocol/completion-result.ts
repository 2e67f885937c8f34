import type { Logger } from '@nestjs/common';
import type { CompleteResult } from '@modelcontextprotocol/server';
import { internalError } from '../../kit/errors/internal-error';
import { clip } from '../../kit/clip';

const MAX_COMPLETION_VALUES = 100;

/**
 * What a completion handler's values answer: at most 100 of them, with the total and whether
 * there are more. Anything but an array of strings (an interceptor or filter changed it) is a bare
 * -32603, logged.
 * @internal
 */
export function completionResult(values: unknown, target: string, logger: Logger): CompleteResult {
  if (!Array.isArray(values) || values.some((value) => typeof value !== 'string')) {
    logger.error(
      `MCP completion for "${clip(target)}" did not produce an array of strings (an interceptor or filter changed it)`,
    );
    throw internalError();
  }
  return {
    completion: {
      values: values.slice(0, MAX_COMPLETION_VALUES) as string[],
      total: values.length,
      hasMore: values.length > MAX_COMPLETION_VALUES,
    },
  };
}
