import { ProtocolError } from '@modelcontextprotocol/server';
import type { CallerPartitions } from '../../auth/identity/caller-partitions';
import type { McpTelemetry } from '../../observability/mcp-telemetry.service';
import type { McpCoreEvents } from '../../options/mcp-core-events';
import type { FleetBus } from '../../wire/fleet/fleet-bus';
import type { SessionGate } from './calls/session-gate';
import { McpSessions } from './mcp-sessions.service';
import { resolveSessionOptions } from './session.options';
import { MemorySessionStore } from './store/memory-session.store';
import type { McpSessionRecord } from './store/session-record';
import { createTestSessionRecord } from './store/session-store.contract';

/** Sessions over `store` (the other collaborators are not reached by change()). */
function sessionsOver(store: MemorySessionStore): McpSessions {
  return new McpSessions(
    resolveSessionOptions(undefined),
    store,
    {} as CallerPartitions,
    {} as SessionGate,
    {} as FleetBus,
    {} as McpTelemetry,
    { watched: false } as McpCoreEvents,
  );
}

describe('McpSessions.change', () => {
  it('writes a change by compare-and-set', async () => {
    const store = new MemorySessionStore();
    const record = createTestSessionRecord();
    await store.create(record, { maxSessions: 10, maxPerPartition: 10 });
    const written = await sessionsOver(store).change(record, (current) => ({
      ...current,
      logLevel: 'debug',
    }));
    expect(written?.version).toBe(record.version + 1);
    expect((await store.get(record.sessionId))?.logLevel).toBe('debug');
  });

  it('refuses a write that keeps losing the race with -32000 and a retry hint, never drops it quietly', async () => {
    const store = new MemorySessionStore();
    const record = createTestSessionRecord();
    await store.create(record, { maxSessions: 10, maxPerPartition: 10 });
    // Another writer wins every time: each read finds a newer version than the one written from.
    let version = record.version;
    store.replace = async () => false;
    store.get = async () => ({ ...record, version: ++version }) as McpSessionRecord;
    const refused = await sessionsOver(store)
      .change(record, (current) => ({ ...current, subscriptions: ['a://b'] }))
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toBeInstanceOf(ProtocolError);
    expect(refused).toMatchObject({ code: -32000, data: { retryAfterMs: expect.any(Number) } });
  });
});
