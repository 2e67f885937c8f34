import { Logger } from '@nestjs/common';
import { internalError } from '../../kit/errors/internal-error';
import type { McpCompleter } from '../decorators/mcp-operation-options.interface';
import { clip } from '../../kit/clip';
import type { OperationCall } from '../../pipeline/operation-call';

const logger = new Logger('McpModule');

/**
 * What a `completion/complete` call runs inside the operation's pipeline: the completer of the
 * requested argument (looked up as an own property only), or no suggestions. The suggestions are
 * recorded on the call, so result-mapping interceptors of the app cannot reshape the answer.
 * @internal
 */
export function completionBody(
  where: string,
  completers: Readonly<Record<string, McpCompleter>>,
): (call: OperationCall) => Promise<unknown> {
  return async (call) => {
    const { argument, value } = call.completion ?? { argument: '', value: '' };
    const completer = Object.hasOwn(completers, argument) ? completers[argument] : undefined;
    if (typeof completer !== 'function') return [];
    const values: unknown = await completer(value, {
      arguments: call.args as Record<string, string>,
      request: call.context,
    });
    if (!Array.isArray(values) || values.some((entry) => typeof entry !== 'string')) {
      logger.error(
        `${where}: the completer of "${clip(argument)}" must return an array of strings`,
      );
      throw internalError();
    }
    call.recordOutcome({ kind: 'completion', values: values as string[] });
    return values;
  };
}
