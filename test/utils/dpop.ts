import { createHash, randomBytes } from 'node:crypto';
import {
  ClientCredentialsProvider,
  DpopSession,
  type ClientCredentialsProviderOptions,
} from '@modelcontextprotocol/client';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import type { DpopProofSigner } from './authorization-server';

/** What a hand-made proof may change: claims and header members (`undefined` removes one). */
export interface ProofOverrides {
  readonly claims?: Record<string, unknown>;
  readonly header?: Record<string, unknown>;
}

/** A proof's request: method and URL, the access token it comes with, the server nonce. */
export interface ProofRequest {
  readonly htm: string;
  readonly htu: string | URL;
  readonly accessToken?: string;
  readonly nonce?: string;
}

/**
 * A DPoP key the tests sign proofs with by hand (with `jose`), so that every claim and header
 * member can be made wrong on purpose; as a {@link DpopProofSigner} it gets tokens bound to it.
 */
export class TestDpopKey implements DpopProofSigner {
  private constructor(
    readonly privateKey: CryptoKey | import('jose').KeyLike,
    readonly publicJwk: JWK,
    readonly privateJwk: JWK,
    readonly thumbprint: string,
  ) {}

  static async create(): Promise<TestDpopKey> {
    const pair = await generateKeyPair('ES256', { extractable: true });
    const publicJwk = await exportJWK(pair.publicKey);
    return new TestDpopKey(
      pair.privateKey,
      publicJwk,
      await exportJWK(pair.privateKey),
      await calculateJwkThumbprint(publicJwk, 'sha256'),
    );
  }

  /** A fresh proof (a new `jti`, `iat` now) of `request`, with `overrides` applied. */
  proof(request: ProofRequest, overrides: ProofOverrides = {}): Promise<string> {
    const url = new URL(request.htu.toString());
    const claims: Record<string, unknown> = {
      jti: randomBytes(16).toString('base64url'),
      htm: request.htm,
      htu: `${url.origin}${url.pathname}`,
      iat: Math.floor(Date.now() / 1000),
      ...(request.accessToken !== undefined && { ath: accessTokenHash(request.accessToken) }),
      ...(request.nonce !== undefined && { nonce: request.nonce }),
      ...overrides.claims,
    };
    const header = { alg: 'ES256', typ: 'dpop+jwt', jwk: this.publicJwk, ...overrides.header };
    return new SignJWT(withoutUndefined(claims))
      .setProtectedHeader(withoutUndefined(header) as never)
      .sign(this.privateKey);
  }

  buildProof(request: ProofRequest): Promise<string> {
    return this.proof(request);
  }
}

/** RFC 9449 `ath`: the access token's SHA-256, base64url. */
export function accessTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

function withoutUndefined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}

/** The headers of a DPoP request: `Authorization: DPoP <token>` and its proof. */
export function dpopHeaders(token: string, proof: string): Record<string, string> {
  return { Authorization: `DPoP ${token}`, DPoP: proof };
}

/**
 * What the official client's `DpopSession` does — a key and the last nonce per origin — with
 * `jose` imported statically: the client's own session imports `jose` dynamically, which Jest
 * runs only with VM modules (the Nest 12 leg), so the Nest 11 leg hands the client this one. The
 * client's transport does the rest as with its own (the DPoP scheme, a proof per request, the
 * `use_dpop_nonce` retry).
 */
export class TestDpopSession {
  private readonly nonces = new Map<string, string>();

  constructor(readonly key: TestDpopKey) {}

  get thumbprint(): string {
    return this.key.thumbprint;
  }

  get alg(): string {
    return 'ES256';
  }

  get publicJwk(): JWK {
    return this.key.publicJwk;
  }

  nonceFor(url: string | URL): string | undefined {
    return this.nonces.get(new URL(url.toString()).origin);
  }

  rememberNonce(url: string | URL, nonce: string): void {
    this.nonces.set(new URL(url.toString()).origin, nonce);
  }

  observeNonce(response: Response, url: string | URL): void {
    const nonce = response.headers.get('dpop-nonce');
    if (nonce) this.rememberNonce(url, nonce);
  }

  buildProof(request: ProofRequest): Promise<string> {
    return this.key.proof({ ...request, nonce: request.nonce ?? this.nonceFor(request.htu) });
  }
}

/**
 * The official client's client-credentials provider with a DPoP key (RFC 9449, SEP-1932): its
 * token requests carry a proof, so the authorization server binds the token to the key, and the
 * transport then signs every MCP request with a fresh proof (and retries a `use_dpop_nonce`).
 */
export class DpopClientCredentialsProvider extends ClientCredentialsProvider {
  private session: Promise<TestDpopSession> | undefined;

  constructor(options: ClientCredentialsProviderOptions & { expectedIssuer: string }) {
    super(options);
  }

  dpop(): Promise<DpopSession> {
    this.session ??= TestDpopKey.create().then((key) => new TestDpopSession(key));
    return this.session as unknown as Promise<DpopSession>;
  }
}
