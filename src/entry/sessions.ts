// `nestjs-mcp/sessions`: what an application writes against to keep 2025-era sessions in a store of
// its own (`sessions.store`, or a provider of `SessionStore`). The `sessions` module option needs
// nothing from here; the Redis store is in `nestjs-mcp/redis`.

export {
  SessionStore,
  type SessionCreationLimits,
} from '../ext/sessions/store/session-store.interface';
export type { McpSessionRecord } from '../ext/sessions/store/session-record';
export {
  MemorySessionStore,
  type MemorySessionStoreOptions,
} from '../ext/sessions/store/memory-session.store';
export { SessionCapacityError } from '../ext/sessions/store/session-capacity.error';
