import { ProtocolError, type CallToolResult } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { unrepresentableNumberError } from '../../kit/errors/unrepresentable-number.error';
import { unrepresentableParamAt } from '../../kit/unrepresentable-number';
import { stringify } from 'lossless-json';
import type { McpJsonValue } from '../../kit/json-value';
import { parseWithExactNumbers } from '../../kit/exact-number.parser';
import type { McpTaskRecord } from './store/mcp-task.types';
import type { TaskStepOutcome } from './steps/task-step-outcome';

/**
 * A tool call's params as a task keeps them: what a rerun must present again, as JSON. Refused
 * with -32602 before anything runs when a number in them is one a double cannot hold (JSON would
 * keep it as `null`), or when they are over `maxBytes` (`tasks.maxCallBytes`): a task keeps its
 * call for its whole life, so what it keeps is bounded.
 * @internal
 */
export function storedCall(
  name: string,
  params: Record<string, unknown>,
  maxBytes: number,
  definition?: string,
): McpTaskRecord['call'] {
  const { inputResponses: _responses, requestState: _state, task: _legacy, ...kept } = params;
  const unrepresentable = unrepresentableParamAt(kept);
  if (unrepresentable !== undefined) throw unrepresentableNumberError(unrepresentable);
  const text = JSON.stringify({ ...kept, name });
  if (Buffer.byteLength(text) > maxBytes)
    throw new ProtocolError(
      McpErrorCode.InvalidParams,
      'Invalid params: the call is too large to run as a task',
      { maxBytes },
    );
  const stored = { name, params: JSON.parse(text) as Record<string, McpJsonValue> };
  return definition === undefined ? stored : { ...stored, definition };
}

/**
 * A JSON copy of a plain object whose numbers keep their exact text (`LosslessNumber`s, as the HTTP
 * layer parses input responses); `{}` for anything else.
 * @internal
 */
export function exactJsonOf(value: unknown): Record<string, McpJsonValue> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (parseWithExactNumbers(stringify(value) as string) as Record<string, McpJsonValue>)
    : {};
}

/** A JSON copy of a plain object; `{}` for anything else. @internal */
export function jsonOf(value: unknown): Record<string, McpJsonValue> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (JSON.parse(JSON.stringify(value)) as Record<string, McpJsonValue>)
    : {};
}

/**
 * The task's answer to a run: input required (with its protected state) or a complete result.
 * @internal
 */
export function stepOutcome(wire: CallToolResult): TaskStepOutcome {
  const { resultType, ...rest } = wire as Record<string, unknown>;
  if (resultType === 'input_required')
    return {
      kind: 'input_required',
      inputRequests: jsonOf(rest.inputRequests),
      requestState: typeof rest.requestState === 'string' ? rest.requestState : undefined,
    };
  // The inlined result is a complete 2026-07-28 `CallToolResult`, discriminator included.
  return { kind: 'complete', result: { ...jsonOf(rest), resultType: 'complete' } };
}

/** A progress report as a task's status message. @internal */
export function progressMessage(progress: number, total?: number, message?: string): string {
  return message ?? (total === undefined ? String(progress) : `${progress}/${total}`);
}

/** @internal */
export function initialState(params: Record<string, unknown>): string | undefined {
  return typeof params.requestState === 'string' ? params.requestState : undefined;
}
