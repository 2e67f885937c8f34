import { specTypeSchemas } from '@modelcontextprotocol/server';
import { clip } from '../../kit/clip';
import { paramsSurelyWellFormed } from './request-params.precheck';

type ParamsSchemaName =
  | 'CallToolRequestParams'
  | 'GetPromptRequestParams'
  | 'ReadResourceRequestParams'
  | 'CompleteRequestParams'
  | 'PaginatedRequestParams';

/** The SDK's schema for the params of each method the module serves itself. */
const PARAMS_SCHEMAS: ReadonlyMap<string, ParamsSchemaName> = new Map([
  ['tools/call', 'CallToolRequestParams'],
  ['prompts/get', 'GetPromptRequestParams'],
  ['resources/read', 'ReadResourceRequestParams'],
  ['completion/complete', 'CompleteRequestParams'],
  ['tools/list', 'PaginatedRequestParams'],
  ['prompts/list', 'PaginatedRequestParams'],
  ['resources/list', 'PaginatedRequestParams'],
  ['resources/templates/list', 'PaginatedRequestParams'],
] as [string, ParamsSchemaName][]);

/**
 * The first malformed field of a request's params, checked with the SDK's own schemas, as a
 * dotted path (`argument.name`, `params` for a params value that is not an object). The SDK would
 * answer such a request with -32603 and its validator's text; the module answers -32602 with a
 * fixed message and this field.
 * @internal
 */
export function malformedParamsField(method: unknown, params: unknown): string | undefined {
  if (typeof method !== 'string') return undefined;
  const schema = PARAMS_SCHEMAS.get(method);
  if (!schema) return undefined;
  // List methods may omit params.
  if (params === undefined && schema === 'PaginatedRequestParams') return undefined;
  // The common shape is recognised without the schema, which only names what is off.
  if (paramsSurelyWellFormed(method, params)) return undefined;
  const outcome = specTypeSchemas[schema]['~standard'].validate(params);
  if (outcome instanceof Promise || !outcome.issues) return undefined;
  const path = outcome.issues[0]?.path ?? [];
  const field = path
    .map((segment) =>
      clip(String(typeof segment === 'object' && segment !== null ? segment.key : segment)),
    )
    .join('.');
  return field === '' ? 'params' : `params.${field}`;
}
