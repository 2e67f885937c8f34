import type { McpTaskRecord } from './mcp-task.types';

/** A task record as the module would create it, expiring `ttlMs` from now. @publicApi */
export function createTestTaskRecord(
  taskId: string,
  ttlMs = 60_000,
  overrides: Partial<McpTaskRecord> = {},
): McpTaskRecord {
  const now = Date.now();
  return {
    taskId,
    version: 1,
    partition: 'alice',
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs,
    expiresAt: now + ttlMs,
    pollIntervalMs: 1000,
    call: { name: 'export', params: { name: 'export', arguments: { rows: 10 } } },
    inputResponses: {},
    runs: 1,
    ...overrides,
  };
}

let counter = 0;
/** A task id no other contract case of this process used. @internal */
export const freshId = () => `contract-${process.pid}-${Date.now()}-${counter++}`;
