import type { McpSessionRecord } from './session-record';

/**
 * What a session holds that its client chose, in JSON characters: its declarations (`initialize`'s
 * capabilities and client info) and its subscribed URIs. `sessions.maxSessionBytes` bounds it, so
 * `maxSessions × maxSessionBytes` bounds what all sessions hold.
 * @internal
 */
export function sessionBytes(
  record: Pick<McpSessionRecord, 'clientCapabilities' | 'clientInfo' | 'subscriptions'>,
): number {
  return (
    JSON.stringify([record.clientCapabilities, record.clientInfo]).length +
    record.subscriptions.reduce((sum, uri) => sum + uri.length + 3, 0)
  );
}
