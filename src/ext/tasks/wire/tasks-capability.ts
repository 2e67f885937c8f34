import {
  MissingRequiredClientCapabilityError,
  type ClientCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { MCP_META_KEYS } from '../../../kit/mcp.constants';
import { MCP_TASKS_EXTENSION } from '../store/mcp-task.types';

/**
 * The -32021 a client that did not declare the tasks extension gets where it is needed.
 * @internal
 */
export function tasksCapabilityMissing(what: string): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [MCP_TASKS_EXTENSION]: {} } } as ClientCapabilities },
    `${what} needs the ${MCP_TASKS_EXTENSION} extension in the request's client capabilities`,
  );
}

/**
 * Whether the request declares the tasks extension in its `_meta` client capabilities.
 * @internal
 */
export function declaresTasks(sdk: ServerContext): boolean {
  const envelope = (sdk.mcpReq.envelope ?? {}) as Record<string, unknown>;
  const capabilities = envelope[MCP_META_KEYS.clientCapabilities] as
    { extensions?: unknown } | undefined;
  const extensions = capabilities?.extensions;
  return (
    extensions !== null &&
    typeof extensions === 'object' &&
    Object.hasOwn(extensions, MCP_TASKS_EXTENSION)
  );
}
