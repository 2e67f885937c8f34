import type { IncomingMessage } from 'node:http';
import { errors, jwtVerify } from 'jose';
import { sha256Base64Url } from '../kit/sha256';
import type { DpopOptions } from './dpop.options';
import type { DpopProofKey, DpopProofKeys } from './dpop-proof-keys';
import { signatureValid } from './dpop-signature-check';
import { TokenRejectedError } from './token-rejected.error';

/** Longest `DPoP` header read; an RSA-4096 proof is about 2 KiB. */
const MAX_PROOF_LENGTH = 8 * 1024;
/** Longest `jti` accepted (RFC 9449 asks for 96 bits of randomness: 16 characters do). */
const MAX_JTI_LENGTH = 256;
/** A compact JWS: three base64url parts (one header field, so no comma of a second one). */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** What a verified proof says: the key's RFC 7638 thumbprint, its `jti`, `iat` and `nonce`. @internal */
export interface VerifiedDpopProof {
  readonly jkt: string;
  readonly jti: string;
  readonly iat: number;
  readonly nonce: unknown;
}

/** What the proof must match: this request, and the access token it comes with. @internal */
export interface DpopProofTarget {
  readonly method: string;
  /** The resource URL the request addresses (the configured public one behind a proxy). */
  readonly url: URL;
  readonly accessToken: string;
}

function rejected(reason: string): TokenRejectedError {
  return new TokenRejectedError(reason, false, 'invalid_dpop_proof');
}

/** A failure of `jose` on the proof as a client-safe reason (never the proof). */
function reasonOf(error: unknown): string {
  if (error instanceof errors.JOSEAlgNotAllowed)
    return 'The DPoP proof is signed with an algorithm not accepted';
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return 'The DPoP proof signature is not valid';
  if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'typ')
    return 'The DPoP proof is not of type dpop+jwt';
  if (error instanceof errors.JWTExpired) return 'The DPoP proof expired';
  return 'The DPoP proof is malformed';
}

/** `htu` values seen, each with the target it names (a client sends the same one every time). */
const htuTargets = new Map<string, string | null>();
const HTU_TARGETS = 256;

/** The targets of the resource URLs (one per endpoint: its getters are not free). */
const urlTargets = new WeakMap<URL, string>();

/** The scheme, host and path a URL names (RFC 9449 §4.3 ignores query and fragment). */
function targetOf(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

function resourceTarget(url: URL): string {
  let target = urlTargets.get(url);
  if (target === undefined) urlTargets.set(url, (target = targetOf(url)));
  return target;
}

/** `htu` names `url`'s target. */
function sameTarget(htu: unknown, url: URL): boolean {
  if (typeof htu !== 'string') return false;
  let target = htuTargets.get(htu);
  if (target === undefined) {
    try {
      target = targetOf(new URL(htu));
    } catch {
      target = null;
    }
    if (htuTargets.size >= HTU_TARGETS) htuTargets.clear();
    htuTargets.set(htu, target);
  }
  return target === resourceTarget(url);
}

/**
 * The one `DPoP` header field of a request, bounded; a missing, repeated or oversized one is
 * refused before anything is parsed.
 * @internal
 */
export function dpopProofOf(req: IncomingMessage): string {
  const proof = req.headers.dpop;
  if (proof === undefined || proof === '') throw rejected('The request carries no DPoP proof');
  if (typeof proof !== 'string' || proof.includes(','))
    throw rejected('The request carries more than one DPoP proof');
  if (proof.length > MAX_PROOF_LENGTH) throw rejected('The DPoP proof is too large');
  if (!COMPACT_JWS.test(proof)) throw rejected('The DPoP proof is malformed');
  return proof;
}

/**
 * Checks a DPoP proof as RFC 9449 §4.3 says, with `jose`: `typ: dpop+jwt`, an accepted asymmetric
 * `alg`, a public `jwk` in the header ({@link DpopProofKeys}) and the signature by it, `htm` and `htu` of this request,
 * `iat` within the window, `ath` the hash of the access token, a `jti`. Whether the `jti` was seen
 * before, the token's binding and the nonce are the caller's to check (the `jti` is recorded only
 * once everything else passed).
 * @internal
 */
export async function verifyDpopProof(
  proof: string,
  target: DpopProofTarget,
  options: Pick<DpopOptions, 'algorithms' | 'proofWindowSeconds'>,
  keys: DpopProofKeys,
  now = Date.now(),
): Promise<VerifiedDpopProof> {
  const proofKey = await keys.keyOf(proof);
  const payload = acceptedByJose.has(proofKey)
    ? claimsOf(proof, proofKey, now)
    : await claimsByJose(proof, proofKey, options, now);
  const { jti, htm, htu, iat, ath } = payload;
  if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH)
    throw rejected('The DPoP proof has no valid jti');
  if (htm !== target.method) throw rejected('The DPoP proof is for another HTTP method');
  if (!sameTarget(htu, target.url)) throw rejected('The DPoP proof is for another URL');
  if (typeof iat !== 'number' || Math.abs(now / 1000 - iat) > options.proofWindowSeconds)
    throw rejected('The DPoP proof was not issued recently enough');
  if (ath !== athOf(target.accessToken))
    throw rejected('The DPoP proof is for another access token');
  return { jkt: proofKey.jkt, jti, iat, nonce: payload.nonce };
}

/** The last access token's `ath` (a client presents one token on call after call). */
let lastToken: string | undefined;
let lastAth = '';

/** The `ath` a proof for `token` must carry: the base64url SHA-256 of the token. */
function athOf(token: string): string {
  if (token !== lastToken) {
    lastAth = sha256Base64Url(token);
    lastToken = token;
  }
  return lastAth;
}

/**
 * Proof keys whose header `jose` accepted with a proof it verified: the header's `typ`, `alg`,
 * `crit` and the key's fitness for `alg` are settled (the header is the same bytes in every proof
 * of the key), so later proofs need only their signature and claims checked — as `jose` checks
 * them, without its per-call key checks and copies (a proof is verified on every request).
 */
const acceptedByJose = new WeakSet<DpopProofKey>();

async function claimsByJose(
  proof: string,
  proofKey: DpopProofKey,
  options: Pick<DpopOptions, 'algorithms'>,
  now: number,
): Promise<Record<string, unknown>> {
  try {
    const { payload } = await jwtVerify(proof, proofKey.key, {
      algorithms: [...options.algorithms],
      typ: 'dpop+jwt',
      currentDate: new Date(now),
    });
    if (proofKey.signature) acceptedByJose.add(proofKey);
    return payload;
  } catch (error) {
    throw rejected(reasonOf(error));
  }
}

/** The claims of a proof of a key `jose` accepted: its signature checked, then `jose`'s claim rules. */
function claimsOf(proof: string, proofKey: DpopProofKey, now: number): Record<string, unknown> {
  const end = proof.lastIndexOf('.');
  if (!signatureValid(proofKey.signature!, proof.slice(0, end), proof.slice(end + 1)))
    throw rejected('The DPoP proof signature is not valid');
  let payload: unknown;
  try {
    payload = JSON.parse(
      Buffer.from(proof.slice(proof.indexOf('.') + 1, end), 'base64url').toString('utf8'),
    );
  } catch {
    throw rejected('The DPoP proof is malformed');
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload))
    throw rejected('The DPoP proof is malformed');
  const claims = payload as Record<string, unknown>;
  // jose's rules for the registered time claims (no clock tolerance): a number each when present,
  // `nbf` not in the future, `exp` not reached.
  const seconds = Math.floor(now / 1000);
  const { iat, nbf, exp } = claims;
  if (iat !== undefined && typeof iat !== 'number') throw rejected('The DPoP proof is malformed');
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf > seconds))
    throw rejected('The DPoP proof is malformed');
  if (exp !== undefined && typeof exp !== 'number') throw rejected('The DPoP proof is malformed');
  if (typeof exp === 'number' && exp <= seconds) throw rejected('The DPoP proof expired');
  return claims;
}
