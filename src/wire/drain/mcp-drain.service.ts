import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { refuseWhileDraining } from './draining-refusal';
import { SHUTDOWN_OPTIONS, type ShutdownOptions } from './shutdown.options';

/**
 * How the instance drains when the app shuts down (the `shutdown` option). From the signal on it
 * is not ready ({@link draining}, what `McpDrainHealthIndicator` reports); for `drainDelayMs` it
 * still serves new requests, each answer closing its connection, so a balancer that has not yet
 * noticed loses nothing. Then it takes no new work: it stops listening (a new connection is
 * refused by the operating system, so a balancer may send it elsewhere) and answers a request on a
 * connection already open with a 503 before the app sees it ({@link refuseWhileDraining}); it
 * waits for the requests in flight — the app's, not only MCP's — and lets Nest close the server.
 * Past `graceMs` the connections still open are cut, so a shutdown always ends within the bound.
 * Listen streams and 2025-era session streams end with their own shutdown hooks, at the signal.
 * @internal
 */
@Injectable()
export class McpDrain implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('McpModule');
  private server: Server | undefined;
  private readonly inFlight = new Set<ServerResponse>();
  private allAnswered: (() => void) | undefined;
  private drainStarted: number | undefined;
  private refusing = false;
  private refused = 0;

  constructor(
    @Inject(SHUTDOWN_OPTIONS) private readonly options: ShutdownOptions,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  /** Whether the drain has begun: the instance should get no new work. */
  get draining(): boolean {
    return this.drainStarted !== undefined;
  }

  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (typeof server?.prependListener !== 'function') return;
    this.server = server;
    // First, before the platform's own listener answers anything.
    server.prependListener('request', this.track);
  }

  private readonly track = (_req: IncomingMessage, res: ServerResponse): void => {
    if (this.draining) res.setHeader('Connection', 'close');
    if (this.refusing) this.refused++;
    this.inFlight.add(res);
    res.once('close', () => {
      this.inFlight.delete(res);
      if (this.inFlight.size === 0) this.allAnswered?.();
    });
  };

  async beforeApplicationShutdown(signal?: string): Promise<void> {
    if (this.draining) return;
    const started = performance.now();
    this.drainStarted = started;
    const { graceMs, drainDelayMs } = this.options;
    this.logger.log(
      `Draining after ${signal ?? 'app.close()'}: not ready; ${this.inFlight.size} requests in flight, at most ${graceMs} ms`,
    );
    // Idle keep-alive connections stay open: closing one now races a balancer that is reusing it
    // (a reset, and a request lost). Each is closed after its next answer, or by the server's close.
    if (drainDelayMs > 0) await sleep(drainDelayMs);
    this.refuseNewWork();
    this.logger.log(
      `No new work after ${Math.round(performance.now() - started)} ms (shutdown.drainDelayMs): not listening; ${this.inFlight.size} requests in flight`,
    );
    const answered = await this.answeredWithin(graceMs - (performance.now() - started));
    const elapsed = Math.round(performance.now() - started);
    const refusals =
      this.refused > 0
        ? `; ${this.refused} requests on open connections refused (503) after shutdown.drainDelayMs`
        : '';
    if (answered) {
      this.logger.log(`Drained in ${elapsed} ms${refusals}`);
      return;
    }
    this.logger.warn(
      `${this.inFlight.size} requests still open after ${elapsed} ms (shutdown.graceMs): their connections are closed${refusals}`,
    );
    this.server?.closeAllConnections?.();
  }

  /**
   * From here on nothing new starts. The server stops listening: a new connection is refused by
   * the operating system, before anything was sent, so a client or balancer may send it elsewhere.
   * A request on a connection already open is answered 503 here, and the app never sees it: the
   * platform's own listeners are taken off.
   */
  private refuseNewWork(): void {
    const server = this.server;
    if (!server) return;
    this.refusing = true;
    const listeners = server.listeners('request');
    for (const listener of listeners)
      if (listener !== this.track && listener !== refuseWhileDraining)
        server.removeListener('request', listener as never);
    // Once, though each McpModule of the app has its own drain.
    if (!listeners.includes(refuseWhileDraining)) server.on('request', refuseWhileDraining);
    // Not http.Server#close: it also closes the idle keep-alive connections, and a client reusing
    // one at that moment gets a reset instead of the 503 (the race the drain avoids).
    if (server.listening) NetServer.prototype.close.call(server);
  }

  /** Whether every request in flight was answered within `timeoutMs`. */
  private async answeredWithin(timeoutMs: number): Promise<boolean> {
    if (this.inFlight.size === 0) return true;
    if (timeoutMs <= 0) return false;
    const abort = new AbortController();
    const answered = new Promise<true>((done) => (this.allAnswered = () => done(true)));
    try {
      return await Promise.race([
        answered,
        sleep(timeoutMs, false, { signal: abort.signal }).catch(() => false),
      ]);
    } finally {
      abort.abort();
      this.allAnswered = undefined;
    }
  }
}
