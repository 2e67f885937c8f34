import { McpInputRequest, McpInputRequiredResult, type McpJsonValue } from '../../src/index';

/** A form that asks one yes/no question, answered as `{ [field]: boolean }`. */
export function yesNoForm(message: string, field = 'ok'): McpInputRequest {
  return McpInputRequest.elicitForm({
    message,
    requestedSchema: { type: 'object', properties: { [field]: { type: 'boolean' } } },
  });
}

/**
 * A handler's first round: one input request under `key`, with framework state that says it asked
 * (so the next round can tell an answer from a first call).
 */
export function askOnce(
  key: string,
  request: McpInputRequest,
  frameworkState: McpJsonValue = { asked: true },
): McpInputRequiredResult {
  return McpInputRequiredResult.builder()
    .inputRequest(key, request)
    .frameworkState(frameworkState)
    .build();
}

/** The schema of an object with one required `field` of `type`: a form's, or a tool's input. */
export function requiredField(field: string, type: 'string' | 'boolean' | 'number') {
  return {
    type: 'object' as const,
    properties: { [field]: { type } },
    required: [field],
  };
}
