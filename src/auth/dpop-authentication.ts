import { Logger } from '@nestjs/common';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { IncomingMessage } from 'node:http';
import {
  dpopReplayUnavailableRefusal,
  type McpHttpRefusal,
} from '../kit/errors/mcp-http-refusal.error';
import { ConsumedStateStoreError } from '../request-state/stores/one-time/consumed-state-store.error';
import type { ConsumedStateStore } from '../request-state/stores/one-time/consumed-state-store.interface';
import { clip } from '../kit/clip';
import { MIN_RETRY_AFTER_MS } from '../kit/fair-share';
import { OccasionalWarning } from '../kit/occasional-warning';
import { sha256Base64Url } from '../kit/sha256';
import type { AccessTokenVerifier } from './access-token.verifier';
import { boundKeyOf } from './access-token-claims';
import type { DpopOptions } from './dpop.options';
import { DpopNonces } from './dpop-nonces';
import { DpopProofKeys } from './dpop-proof-keys';
import { dpopProofOf, verifyDpopProof, type VerifiedDpopProof } from './dpop-proof.verifier';
import { TokenRejectedError } from './token-rejected.error';

/** Subjects whose owner digest is remembered at most. */
const REMEMBERED_OWNERS = 1_024;

/**
 * How long past its acceptance window a proof's `jti` is kept: proofs are accepted while `iat` is
 * within the window of the accepting instance's clock, so a fleet whose clocks differ by up to this
 * much still refuses every replay.
 */
const CLOCK_MARGIN_MS = 5_000;

/** What a DPoP request's check found: the principal (and headers for its answer), or a refusal. @internal */
export type DpopOutcome =
  | {
      readonly kind: 'principal';
      readonly auth: AuthInfo;
      readonly headers: Readonly<Record<string, string>> | undefined;
    }
  | { readonly kind: 'refused'; readonly refusal: McpHttpRefusal };

/**
 * A request with `Authorization: DPoP <token>` (RFC 9449 §7): its proof checked against this
 * request and token, its nonce (when the server asks for nonces), the token verified, the token's
 * `cnf.jkt` matched with the proof's key, and only then the proof's `jti` recorded — once, in the
 * replay cache (Redis for a fleet), owned by the token's subject for the cache's fair shares. A
 * proof that could not be recorded is never accepted: 503 with `-32000`, retryable.
 * @internal
 */
export class DpopAuthentication {
  private readonly logger = new Logger('McpModule');
  private readonly unrecorded = new OccasionalWarning((message) => this.logger.warn(message));
  /** The nonces this server issues and accepts, when it asks for them. */
  readonly nonces: DpopNonces | undefined;
  private readonly keys: DpopProofKeys;
  /** Owner digests by subject text (bounded: cleared when {@link REMEMBERED_OWNERS} are held). */
  private readonly owners = new Map<string, string>();

  constructor(
    private readonly options: DpopOptions,
    private readonly replayCache: () => ConsumedStateStore,
  ) {
    this.nonces = options.nonce
      ? new DpopNonces(options.nonce.key, options.nonce.rotationSeconds)
      : undefined;
    this.keys = new DpopProofKeys(options);
  }

  /** Throws `TokenRejectedError` (its `error` the challenge's) for what the client must fix. */
  async authenticate(
    req: IncomingMessage,
    token: string,
    resource: URL,
    verifier: AccessTokenVerifier,
  ): Promise<DpopOutcome> {
    const proof = await verifyDpopProof(
      dpopProofOf(req),
      { method: req.method ?? '', url: resource, accessToken: token },
      this.options,
      this.keys,
    );
    if (this.nonces && !this.nonces.accepts(proof.nonce))
      throw new TokenRejectedError('A fresh DPoP nonce is required', false, 'use_dpop_nonce');
    const auth = await verifier.verify(token, resource);
    const bound = boundKeyOf(auth);
    if (bound === undefined && this.options.mode === 'required')
      throw new TokenRejectedError('The access token is not bound to a DPoP key');
    if (bound !== undefined && bound !== proof.jkt)
      throw new TokenRejectedError('The DPoP proof is not signed by the key the token is bound to');
    const refusal = await this.record(proof, auth);
    if (refusal) return { kind: 'refused', refusal };
    return {
      kind: 'principal',
      auth,
      headers: this.nonces && { 'dpop-nonce': this.nonces.current() },
    };
  }

  /** The replay cache's owner for a subject: its digest, remembered for the last few subjects. */
  private ownerOf(subject: string): string {
    let owner = this.owners.get(subject);
    if (owner === undefined) {
      owner = sha256Base64Url(subject);
      if (this.owners.size >= REMEMBERED_OWNERS) this.owners.clear();
      this.owners.set(subject, owner);
    }
    return owner;
  }

  /** Records the proof's `jti`; a replay throws, a proof that could not be recorded is refused. */
  private async record(
    proof: VerifiedDpopProof,
    auth: AuthInfo,
  ): Promise<McpHttpRefusal | undefined> {
    const expiresAt = (proof.iat + this.options.proofWindowSeconds) * 1000 + CLOCK_MARGIN_MS;
    // Shares are per token subject: a client can mint keys at will, not subjects.
    const owner = this.ownerOf(JSON.stringify([auth.extra?.iss, auth.clientId, auth.extra?.sub]));
    let first: boolean;
    try {
      const cache = this.replayCache();
      const id = sha256Base64Url(`${proof.jkt}.${proof.jti}`);
      // A jti is never presented again after a failed attempt (a retry signs a new proof).
      first = await (cache.record
        ? cache.record(id, expiresAt, owner)
        : cache.consume(id, expiresAt, owner));
    } catch (error) {
      const store = error instanceof ConsumedStateStoreError;
      const reason = store ? error.reason : error instanceof Error ? error.name : 'unknown';
      this.unrecorded.report(
        `DPoP proof refused with 503: its jti could not be recorded (${clip(reason, 64)})`,
      );
      if (store && (reason === 'full' || reason === 'share'))
        return dpopReplayUnavailableRefusal(reason, error.retryAfterMs ?? MIN_RETRY_AFTER_MS);
      return dpopReplayUnavailableRefusal('unavailable', MIN_RETRY_AFTER_MS);
    }
    if (!first)
      throw new TokenRejectedError('The DPoP proof was used before', false, 'invalid_dpop_proof');
    return undefined;
  }
}
