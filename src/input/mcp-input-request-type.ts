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
