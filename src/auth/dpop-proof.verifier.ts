import type { IncomingMessage } from 'node:http';
import { errors, jwtVerify } from 'jose';
import { sha256Base64Url } from '../kit/sha256';
import type { DpopOptions } from './dpop.options';
import type { DpopProofKeys } from './dpop-proof-keys';
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

/** `htu` names `url` (scheme, host and path; RFC 9449 §4.3 ignores query and fragment). */
function sameTarget(htu: unknown, url: URL): boolean {
  if (typeof htu !== 'string') return false;
  let given: URL;
  try {
    given = new URL(htu);
  } catch {
    return false;
  }
  return (
    given.protocol === url.protocol && given.host === url.host && given.pathname === url.pathname
  );
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
  const { key, jkt } = await keys.keyOf(proof);
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(proof, key, {
      algorithms: [...options.algorithms],
      typ: 'dpop+jwt',
      currentDate: new Date(now),
    }));
  } catch (error) {
    throw rejected(reasonOf(error));
  }
  const { jti, htm, htu, iat, ath } = payload;
  if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH)
    throw rejected('The DPoP proof has no valid jti');
  if (htm !== target.method) throw rejected('The DPoP proof is for another HTTP method');
  if (!sameTarget(htu, target.url)) throw rejected('The DPoP proof is for another URL');
  if (typeof iat !== 'number' || Math.abs(now / 1000 - iat) > options.proofWindowSeconds)
    throw rejected('The DPoP proof was not issued recently enough');
  if (ath !== sha256Base64Url(target.accessToken))
    throw rejected('The DPoP proof is for another access token');
  return { jkt, jti, iat, nonce: payload.nonce };
}
