/**
 * What an operation may ask the client for.
 *
 * - `elicitation.form`: a form (`elicitation/create`, mode `form`); needs `elicitation.form`
 *   (a bare `elicitation: {}` counts).
 * - `elicitation.url`: a browser flow (`elicitation/create`, mode `url`); needs `elicitation.url`.
 * - `sampling`: a completion (`sampling/createMessage`); needs `sampling`.
 * - `sampling.tools`: a completion that offers tools or a tool choice; needs `sampling.tools`.
 * - `roots`: the client's roots (`roots/list`); needs `roots`.
 *
 * @publicApi
 */
export type McpInputRequestType =
  'elicitation.form' | 'elicitation.url' | 'sampling' | 'sampling.tools' | 'roots';

/** The embedded JSON-RPC method of each input request type. */
export const INPUT_REQUEST_METHODS: Readonly<Record<McpInputRequestType, string>> = {
  'elicitation.form': 'elicitation/create',
  'elicitation.url': 'elicitation/create',
  sampling: 'sampling/createMessage',
  'sampling.tools': 'sampling/createMessage',
  roots: 'roots/list',
};

/** All input request types, for validation. */
export const INPUT_REQUEST_TYPES = Object.keys(INPUT_REQUEST_METHODS) as McpInputRequestType[];
