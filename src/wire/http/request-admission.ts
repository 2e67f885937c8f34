import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { writeJsonRpcHttpError } from '../../kit/json-rpc-http-error';
import { BodyByteBudget, type BodyReservation } from './body-byte-budget';
import { HostOriginPolicy, type HostOriginRefusal } from './host-origin-policy';
import { clip } from '../../kit/clip';
import { discardRequestBody, readRequestBody } from './request-body.reader';
import { TRANSPORT_OPTIONS, type TransportOptions } from './transport.options';
import type { EndpointRequest, EndpointStage } from './endpoint-stage';

/** The first bytes of every body, which the shared budget never refuses. */
const SMALL_BODY_BYTES = 65_536;

/** Host/Origin refusals logged at most this often. */
const REFUSAL_LOG_INTERVAL_MS = 1_000;

/** What the early step keeps of a request it admitted. */
interface Admitted {
  /** The body read, until it is handed over. */
  text: string | undefined;
  readonly reservation: BodyReservation;
}

/**
 * The endpoint's first step, ahead of the app's middleware and body parsers: DNS-rebinding
 * protection (Host and Origin) and the raw body of a POST, read within its size, time and the
 * shared in-flight budget. What it read waits here until the request is served.
 *
 * A request the Host/Origin check refuses is answered where the endpoint serves requests, after
 * the app's middleware, like every other answer of the endpoint: a browser shows a page only an
 * answer that carries the app's CORS headers for its origin, so the refusal must come after the
 * app's CORS handler (which also answers preflights: an `OPTIONS` runs nothing here). The early
 * step reads its body only to drop it, so nothing down the stack parses it.
 * @internal
 */
@Injectable()
export class RequestAdmission implements EndpointStage {
  private readonly policy: HostOriginPolicy;
  /** Memory large bodies hold until their response ends. */
  private readonly budget: BodyByteBudget;
  /**
   * Where a request keeps what the early step read of it (its body until handed over, the budget it
   * holds): a property of this instance's own, not a `WeakMap` (whose entry per request costs
   * the collector more than the request's other work).
   */
  private readonly admittedKey = Symbol('McpRequestAdmission');
  private readonly logger = new Logger('McpTransport');
  private lastRefusalLoggedAt = -Infinity;
  private unloggedRefusals = 0;

  constructor(@Inject(TRANSPORT_OPTIONS) private readonly options: TransportOptions) {
    this.policy = new HostOriginPolicy(options.allowedHosts, options.allowedOrigins);
    this.budget = new BodyByteBudget(options.body.maxInFlightBytes, SMALL_BODY_BYTES);
  }

  /**
   * One warn line per refusal, naming the header and its value; at most one a second, so a client
   * cannot flood the log (the next line counts the ones left out).
   */
  private logRefusal(refusal: HostOriginRefusal, req: IncomingMessage): void {
    const now = Date.now();
    if (now - this.lastRefusalLoggedAt < REFUSAL_LOG_INTERVAL_MS) {
      this.unloggedRefusals++;
      return;
    }
    const left = this.unloggedRefusals;
    this.lastRefusalLoggedAt = now;
    this.unloggedRefusals = 0;
    const value = refusal.value === undefined ? 'missing' : JSON.stringify(clip(refusal.value));
    this.logger.warn(
      `MCP endpoint refused a request: ${refusal.header} header ${value} not allowed (from ${clip(req.socket.remoteAddress ?? 'unknown')}); if it is yours, add it to ${refusal.option}${left > 0 ? ` (${left} more refusals not logged)` : ''}`,
    );
  }

  private refusal(req: IncomingMessage): HostOriginRefusal | undefined {
    return this.options.dnsRebindingProtection ? this.policy.refusal(req) : undefined;
  }

  /** Answers a refused request 403, with what the app's middleware already set on `res`. */
  private refuse(refusal: HostOriginRefusal, req: IncomingMessage, res: ServerResponse): void {
    req.resume();
    this.logRefusal(refusal, req);
    writeJsonRpcHttpError(
      res,
      403,
      McpErrorCode.InvalidRequest,
      `Forbidden: ${refusal.message}`,
      null,
      {
        option: refusal.option,
      },
    );
  }

  /**
   * The early step, ahead of the app's middleware (Express). A request the Host/Origin check
   * refuses goes on once its body is dropped, to be answered by {@link admit} after the app's
   * middleware; one whose body cannot be dropped within the body limits is answered here.
   */
  async admitEarly(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const refusal = this.refusal(req);
    if (refusal === undefined) return this.readBody(req, res);
    const limits = this.options.body;
    if (await discardRequestBody(req, limits.maxBytes, limits.timeoutMs)) return true;
    res.setHeader('Connection', 'close');
    this.refuse(refusal, req, res);
    return false;
  }

  /** Host/origin policy, then the bounded raw body of a POST; answers and resolves false on refusal. */
  async admit(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const refusal = this.refusal(req);
    if (refusal) {
      this.refuse(refusal, req, res);
      return false;
    }
    return this.readBody(req, res);
  }

  /** The bounded raw body of a POST, kept for {@link takeBody}; answers and resolves false when it cannot be read. */
  private async readBody(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    if (req.method !== 'POST') return true;
    const limits = this.options.body;
    const reservation = this.budget.open();
    const admitted: Admitted = { text: undefined, reservation };
    this.keep(req, admitted);
    res.once('close', reservation.release);
    const body = await readRequestBody(req, limits.maxBytes, limits.timeoutMs, reservation);
    if (body.ok) {
      admitted.text = body.text;
      return true;
    }
    if (body.reason === 'aborted') {
      res.destroy();
    } else if (body.reason === 'over_budget') {
      // The client may still be sending: keep reading (and discarding) so it gets the answer
      // instead of a reset, but no longer than a body may take.
      const cutOff = setTimeout(() => req.socket.destroy(), limits.timeoutMs);
      req.once('end', () => clearTimeout(cutOff));
      req.socket.once('close', () => clearTimeout(cutOff));
      res.setHeader('Retry-After', '1');
      writeJsonRpcHttpError(
        res,
        503,
        McpErrorCode.ServerBusy,
        'Server busy: too many large request bodies in flight',
        null,
        { maxInFlightBytes: limits.maxInFlightBytes },
      );
    } else if (body.reason === 'timeout') {
      res.setHeader('Connection', 'close');
      writeJsonRpcHttpError(res, 408, McpErrorCode.InvalidRequest, 'Request body timed out', null, {
        timeoutMs: limits.timeoutMs,
      });
    } else {
      res.setHeader('Connection', 'close');
      writeJsonRpcHttpError(res, 413, McpErrorCode.InvalidRequest, 'Request body too large', null, {
        maxBytes: limits.maxBytes,
      });
    }
    return false;
  }

  /**
   * The endpoint's first stage: a request the early step did not take in (a route hook that runs
   * after it, an app mounted without the early step) is admitted here; then its body is the
   * request's text, and the request goes on.
   */
  take(current: EndpointRequest): boolean | Promise<boolean> {
    if (this.admitted(current.raw)) {
      current.text = this.takeBody(current.raw);
      return false;
    }
    return this.admit(current.raw, current.response).then((admitted) => {
      if (!admitted) return true;
      current.text = this.takeBody(current.raw);
      return false;
    });
  }

  /** Whether the early step has run for `req` (a framework that skipped it gets it late). */
  admitted(req: IncomingMessage): boolean {
    return this.kept(req)?.text !== undefined;
  }

  /** The body the early step read, handed over once. */
  takeBody(req: IncomingMessage): string | undefined {
    const admitted = this.kept(req);
    if (!admitted) return undefined;
    const text = admitted.text;
    admitted.text = undefined;
    return text;
  }

  /** Gives back the budget a body held, for a request that keeps no body (a listen stream). */
  releaseBody(req: IncomingMessage): void {
    this.kept(req)?.reservation.release();
  }

  private keep(req: IncomingMessage, admitted: Admitted): void {
    (req as unknown as Record<symbol, Admitted>)[this.admittedKey] = admitted;
  }

  private kept(req: IncomingMessage): Admitted | undefined {
    return (req as unknown as Record<symbol, Admitted | undefined>)[this.admittedKey];
  }
}
