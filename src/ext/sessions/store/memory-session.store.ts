import { frozenCopy } from '../../../kit/deep-freeze';
import { shareRefusal } from '../../../kit/fair-share';
import { SessionCapacityError } from './session-capacity.error';
import type { McpSessionRecord } from './session-record';
import type { SessionCreationLimits, SessionStore } from './session-store.interface';

/** Options of {@link MemorySessionStore}. @publicApi */
export interface MemorySessionStoreOptions {
  /** Clock, for tests. */
  now?: () => number;
}

/**
 * The default {@link SessionStore}: sessions in this process's memory, frozen copies in and out,
 * expired ones dropped when read and swept when the store is full. Right for one process; behind a
 * load balancer every instance needs the same store (`redis`).
 *
 * @publicApi
 */
export class MemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, McpSessionRecord>();
  /** Session ids by partition, for the per-caller limit (expired ones leave as they are found). */
  private readonly byPartition = new Map<string, Set<string>>();
  private readonly now: () => number;

  constructor(options: MemorySessionStoreOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  create(record: McpSessionRecord, limits: SessionCreationLimits): Promise<void> {
    if (this.live(record.sessionId)) return Promise.reject(new Error('Session id already exists'));
    const share = { capacity: limits.maxSessions, perPartition: limits.maxPerPartition };
    const held = this.liveCountOf(record.partition);
    if (shareRefusal(share, held, this.sessions.size, 1) !== undefined) this.sweep();
    const refused = shareRefusal(share, held, this.sessions.size, 1);
    if (refused === 'store') return Promise.reject(new SessionCapacityError(limits.maxSessions));
    if (refused) return Promise.reject(new SessionCapacityError(limits.maxPerPartition, 'caller'));
    this.sessions.set(record.sessionId, frozenCopy(record));
    let ids = this.byPartition.get(record.partition);
    if (!ids) this.byPartition.set(record.partition, (ids = new Set()));
    ids.add(record.sessionId);
    return Promise.resolve();
  }

  get(sessionId: string): Promise<McpSessionRecord | undefined> {
    return Promise.resolve(this.live(sessionId));
  }

  replace(next: McpSessionRecord, expectedVersion: number): Promise<boolean> {
    const current = this.live(next.sessionId);
    if (
      !current ||
      current.version !== expectedVersion ||
      next.version !== expectedVersion + 1 ||
      next.partition !== current.partition
    )
      return Promise.resolve(false);
    this.sessions.set(next.sessionId, frozenCopy(next));
    return Promise.resolve(true);
  }

  delete(sessionId: string): Promise<boolean> {
    const current = this.live(sessionId);
    if (current) this.forget(current);
    return Promise.resolve(current !== undefined);
  }

  /** Unexpired sessions held now. */
  get size(): number {
    this.sweep();
    return this.sessions.size;
  }

  private live(sessionId: string): McpSessionRecord | undefined {
    const record = this.sessions.get(sessionId);
    if (record && record.expiresAt <= this.now()) {
      this.forget(record);
      return undefined;
    }
    return record;
  }

  private liveCountOf(partition: string): number {
    const ids = this.byPartition.get(partition);
    if (!ids) return 0;
    for (const sessionId of ids) if (!this.live(sessionId)) ids.delete(sessionId);
    return ids.size;
  }

  private forget(record: McpSessionRecord): void {
    this.sessions.delete(record.sessionId);
    const ids = this.byPartition.get(record.partition);
    ids?.delete(record.sessionId);
    if (ids?.size === 0) this.byPartition.delete(record.partition);
  }

  private sweep(): void {
    const now = this.now();
    for (const record of this.sessions.values()) if (record.expiresAt <= now) this.forget(record);
  }
}
