import { ProtocolError } from '@modelcontextprotocol/server';
import { stringify } from 'lossless-json';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import type { McpJsonValue } from '../../kit/json-value';
import { clip } from '../../kit/clip';
import { parseWithExactNumbers } from '../../kit/exact-number.parser';
import type { McpTaskRecord } from './store/mcp-task.types';
import { parseInputResponse, type McpInputResponse } from '../../extension-api';

const RESPONSE_KIND_OF_METHOD: Readonly<Record<string, McpInputResponse['kind']>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** The kind of answer an outstanding input request takes. */
function kindAsked(request: McpJsonValue | undefined): McpInputResponse['kind'] | undefined {
  const method = (request as { method?: unknown } | null | undefined)?.method;
  return typeof method === 'string' && Object.hasOwn(RESPONSE_KIND_OF_METHOD, method)
    ? RESPONSE_KIND_OF_METHOD[method]
    : undefined;
}

/** The task's answers with every number as the client wrote it (or as stored, for older records). @internal */
export function exactAnswersOf(task: McpTaskRecord): Record<string, McpJsonValue> {
  return task.exactInputResponses === undefined
    ? task.inputResponses
    : (parseWithExactNumbers(task.exactInputResponses) as Record<string, McpJsonValue>);
}

/**
 * Answers in the two forms a task keeps them: plain JSON, and JSON text with every number as
 * written. @internal
 */
export function answerForms(
  answers: Record<string, McpJsonValue>,
): Pick<McpTaskRecord, 'inputResponses'> & { readonly exactInputResponses: string } {
  const exact = stringify(answers) as string;
  return {
    inputResponses: JSON.parse(exact) as Record<string, McpJsonValue>,
    exactInputResponses: exact,
  };
}

/**
 * {@link answerForms}, refused with -32602 when the answers are over `maxBytes` in all
 * (`tasks.maxInputResponseBytes`) — on `tasks/update` and on the call that creates the task alike.
 * @internal
 */
export function boundedAnswerForms(
  answers: Record<string, McpJsonValue>,
  maxBytes: number,
): ReturnType<typeof answerForms> {
  const forms = answerForms(answers);
  if (Buffer.byteLength(forms.exactInputResponses) > maxBytes)
    throw new ProtocolError(
      McpErrorCode.InvalidParams,
      'Invalid params: input responses too large',
      {
        maxBytes,
      },
    );
  return forms;
}

/**
 * The task with `responses` to its outstanding input requests recorded: answered keys leave
 * `inputRequests`, and once none is left the task is working again, for one more run. Keys it did
 * not ask for (or no longer asks for) are ignored; `undefined` when nothing changes. A malformed
 * answer to an outstanding key, or answers over `maxBytes` in all, are -32602.
 * @internal
 */
export function withAnswers(
  task: McpTaskRecord,
  responses: Record<string, unknown>,
  maxBytes: number,
): McpTaskRecord | undefined {
  if (task.status !== 'input_required' || !task.inputRequests) return undefined;
  const outstanding = { ...task.inputRequests };
  const answers = { ...exactAnswersOf(task) };
  let changed = false;
  for (const key of Object.keys(responses)) {
    if (!Object.hasOwn(outstanding, key)) continue;
    if (!parseInputResponse(responses[key], kindAsked(outstanding[key])))
      throw new ProtocolError(
        McpErrorCode.InvalidParams,
        `Invalid params: input response "${clip(key)}" is not a valid result`,
        { key: clip(key) },
      );
    // defineProperty: a "__proto__" key stays an answer, never a prototype.
    Object.defineProperty(answers, key, {
      value: responses[key] as McpJsonValue,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    delete outstanding[key];
    changed = true;
  }
  if (!changed) return undefined;
  const forms = boundedAnswerForms(answers, maxBytes);
  return Object.keys(outstanding).length === 0
    ? {
        ...task,
        status: 'working',
        inputRequests: undefined,
        ...forms,
        runs: task.runs + 1,
      }
    : { ...task, inputRequests: outstanding, ...forms };
}
