import { Inject, Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { sha256Base64Url } from '../../kit/sha256';
import { SessionGate } from './calls/session-gate';
import { serverBusy } from '../../kit/errors/server-busy';
import { storeUnavailable } from '../../kit/errors/store-unavailable';
import type { McpJsonValue } from '../../kit/json-value';
import { SESSION_CHANNEL } from './session-channel';
import { SESSION_OPTIONS, type SessionOptions } from './session.options';
import { isSessionId, newSessionId } from './store/session-id';
import type { McpSessionRecord } from './store/session-record';
import { SessionStore } from './store/session-store.interface';
import {
  ANONYMOUS_PARTITION,
  CallerPartitions,
  FleetBus,
  McpTelemetry,
  McpCoreEvents,
  OutageLog,
  boundKeyOf,
  outageOf,
  type CallHttp,
} from '../../extension-api';

const WRITE_ATTEMPTS = 8;
/** A session's expiry moves forward once a tenth of its idle timeout has passed, not on every request. */
const REFRESH_FRACTION = 0.1;

/** What `initialize` declared. @internal */
export interface SessionOpening {
  readonly protocolVersion: string;
  readonly clientCapabilities: Record<string, McpJsonValue>;
  readonly clientInfo: Record<string, McpJsonValue>;
}

/**
 * The 2025-era sessions: opened by `initialize`, found by their `Mcp-Session-Id` (only by the
 * caller that opened them: another caller's session is not found), kept alive while used and
 * expiring when idle, changed by compare-and-set, closed by `DELETE`. They live in the
 * {@link SessionStore} (memory, or Redis for a fleet).
 * @internal
 */
@Injectable()
export class McpSessions {
  private readonly logger = new Logger('McpSessions');
  private readonly outage = new OutageLog(this.logger, 'The session store');

  constructor(
    @Inject(SESSION_OPTIONS) private readonly options: SessionOptions,
    @Inject(SessionStore) private readonly store: SessionStore,
    private readonly partitions: CallerPartitions,
    private readonly gate: SessionGate,
    private readonly bus: FleetBus,
    private readonly telemetry: McpTelemetry,
    private readonly events: McpCoreEvents,
  ) {}

  /** Declarations plus subscriptions one session may hold (`sessions.maxSessionBytes`). */
  get maxSessionBytes(): number {
    return this.options.maxSessionBytes;
  }

  /**
   * A store operation; an outage (the store unreachable, timing out, read-only, out of memory…)
   * becomes `-32000 Server busy: the store is unavailable`, logged once per outage, so the request
   * is answered as one to retry (HTTP 503 before a session request is served, 200 inside a call).
   */
  private async stored<T>(operation: (store: SessionStore) => Promise<T>): Promise<T> {
    try {
      const result = await operation(this.store);
      this.outage.answered();
      return result;
    } catch (error) {
      const unavailable = outageOf(error);
      if (unavailable === undefined) throw error;
      this.outage.failed(unavailable);
      throw storeUnavailable();
    }
  }

  /**
   * The caller as a session is owned by: the app's global guards run for the request
   * ({@link SessionGate}: a passport-style guard puts the user on `req.user`), then the partition
   * resolver (the one request state uses) names the caller. Callers it cannot tell apart are told
   * apart by address, as the listen limits and the rate limiter key them: one anonymous client
   * cannot take the session allowance of every other. A caller with a DPoP-bound token is told
   * apart by its key as well. A guard's refusal is thrown.
   */
  async partitionOf(
    http: CallHttp,
    method: string,
    params: Readonly<Record<string, unknown>> = {},
  ): Promise<string> {
    const context = await this.gate.authenticate(http, method, params);
    const partition = await this.partitions.resolve(context);
    // A session opened with a DPoP-bound token is its subject's holding that key (RFC 9449): the
    // same subject with a token bound to another key does not find it.
    const key = context.http.authInfo ? boundKeyOf(context.http.authInfo) : undefined;
    if (key !== undefined) return JSON.stringify([partition, ['dpop', key]]);
    if (partition !== ANONYMOUS_PARTITION) return partition;
    const raw = http.raw as IncomingMessage;
    const address = http.request.ip || raw.socket?.remoteAddress || 'unknown';
    return JSON.stringify([ANONYMOUS_PARTITION, sha256Base64Url(address)]);
  }

  /**
   * Opens a session for `partition`; rejects with `SessionCapacityError` over the limits, with the
   * busy `ProtocolError` when the store is unavailable.
   */
  async create(opening: SessionOpening, partition: string): Promise<McpSessionRecord> {
    const now = Date.now();
    const record: McpSessionRecord = {
      sessionId: newSessionId(),
      version: 1,
      ...opening,
      partition,
      createdAt: now,
      expiresAt: now + this.options.idleTimeoutMs,
      subscriptions: [],
      taskIds: [],
    };
    await this.stored((store) =>
      store.create(record, {
        maxSessions: this.options.maxSessions,
        maxPerPartition: this.options.maxSessionsPerCaller,
      }),
    );
    this.announce('opened', record);
    return record;
  }

  /**
   * The session `sessionId` names, if it exists and is `partition`'s; its expiry moves forward.
   * Anything else — malformed, unknown, expired, deleted, another caller's — is `undefined`.
   */
  async open(sessionId: unknown, partition: string): Promise<McpSessionRecord | undefined> {
    if (!isSessionId(sessionId)) return undefined;
    const record = await this.stored((store) => store.get(sessionId));
    if (!record || record.partition !== partition) return undefined;
    const now = Date.now();
    const idle = this.options.idleTimeoutMs;
    if (record.expiresAt - now < idle * (1 - REFRESH_FRACTION)) {
      // Another writer winning the race moved it forward too; a failing store is retried next time.
      void this.change(record, (current) => ({ ...current, expiresAt: now + idle })).catch(
        () => undefined,
      );
    }
    return record;
  }

  /**
   * Writes `change(current)` by compare-and-set, retrying on a concurrent write; answers the
   * record written, or `undefined` when the session is gone or `change` leaves it as it is. A write
   * that keeps losing the race is never dropped quietly: it is refused with `-32000` and
   * `data.retryAfterMs`, so the client knows to try again.
   */
  async change(
    record: McpSessionRecord,
    change: (current: McpSessionRecord) => McpSessionRecord | undefined,
  ): Promise<McpSessionRecord | undefined> {
    let current: McpSessionRecord | undefined = record;
    for (let attempt = 0; attempt < WRITE_ATTEMPTS && current; attempt++) {
      const changed = change(current);
      if (!changed) return undefined;
      const expected = current.version;
      const next = { ...changed, version: expected + 1 };
      if (await this.stored((store) => store.replace(next, expected))) return next;
      current = await this.stored((store) => store.get(record.sessionId));
    }
    if (!current) return undefined;
    this.logger.warn('A session kept changing under a write; the request is refused to retry');
    throw serverBusy('Server busy: the session changed under this request; try again', undefined);
  }

  /**
   * Deletes the session; its streams and calls on every instance end. The session's
   * `mcp.server.session.duration` is recorded once, by the instance whose delete removed it.
   */
  async close(record: McpSessionRecord): Promise<void> {
    const existed = await this.stored((store) => store.delete(record.sessionId));
    this.bus.publish(SESSION_CHANNEL, { kind: 'closed', sessionId: record.sessionId });
    if (!existed) return;
    this.telemetry.sessionEnded(record.protocolVersion, (Date.now() - record.createdAt) / 1000);
    this.announce('closed', record);
  }

  private announce(action: 'opened' | 'closed', record: McpSessionRecord): void {
    if (!this.events.watched) return;
    this.events.publish({
      kind: 'session',
      action,
      sessionId: record.sessionId,
      principal: record.partition,
      protocolVersion: record.protocolVersion,
    });
  }
}
