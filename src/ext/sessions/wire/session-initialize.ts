import { specTypeSchemas } from '@modelcontextprotocol/server';
import type { McpJsonValue } from '../../../kit/json-value';
import type { SessionOpening } from '../mcp-sessions.service';
import { sessionBytes } from '../store/session-bytes';
import { TASKS_CAPABILITY_2025 } from '../tasks/task-wire-2025';
import type { ServerOptions } from '../../../extension-api';

/**
 * The 2025-era protocol versions a session may negotiate, newest first. 2025-03-26 and older
 * needed JSON-RPC batches, which this endpoint does not take: their clients are offered 2025-11-25.
 * @internal
 */
export const SESSION_PROTOCOL_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18'];

/**
 * The version `initialize` settles on, as 2025-11-25 says: the one the client asked for when it
 * is served, else the newest served (the client then decides whether to go on).
 * @internal
 */
export function negotiatedVersion(requested: unknown): string {
  return typeof requested === 'string' && SESSION_PROTOCOL_VERSIONS.includes(requested)
    ? requested
    : (SESSION_PROTOCOL_VERSIONS[0] as string);
}

/**
 * What `initialize` declared, or `undefined` when it is not a valid `initialize` whose
 * declarations fit `maxBytes` (`sessions.maxSessionBytes`). @internal
 */
export function sessionOpening(message: unknown, maxBytes: number): SessionOpening | undefined {
  const checked = specTypeSchemas.InitializeRequest['~standard'].validate(message);
  if (checked instanceof Promise || checked.issues) return undefined;
  const params = (message as { params: Record<string, unknown> }).params;
  const clientCapabilities = params.capabilities as Record<string, McpJsonValue>;
  const clientInfo = params.clientInfo as Record<string, McpJsonValue>;
  if (sessionBytes({ clientCapabilities, clientInfo, subscriptions: [] }) > maxBytes)
    return undefined;
  return {
    protocolVersion: negotiatedVersion(params.protocolVersion),
    clientCapabilities,
    clientInfo,
  };
}

/**
 * What a session is served, as `initialize` answers it — only what the 2025 path does: list
 * changes and subscribed resources' updates on the `GET` stream, logging at the level the client
 * sets, completions, 2025-11-25 tasks when a tool runs as one, and the extensions declared for
 * 2025-era clients too (`extensions`, settings inline).
 * @internal
 */
export function initializeResult(
  protocolVersion: string,
  server: ServerOptions,
  servesTasks: boolean,
  extensions?: Record<string, Record<string, unknown>>,
): Record<string, unknown> {
  return {
    protocolVersion,
    capabilities: {
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      completions: {},
      logging: {},
      ...(servesTasks && { tasks: TASKS_CAPABILITY_2025 }),
      ...(extensions !== undefined && { extensions }),
    },
    serverInfo: server.serverInfo,
    ...(server.instructions !== undefined && { instructions: server.instructions }),
  };
}
