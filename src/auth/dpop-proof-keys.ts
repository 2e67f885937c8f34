import {
  calculateJwkThumbprint,
  decodeProtectedHeader,
  importJWK,
  type JWK,
  type KeyLike,
} from 'jose';
import { KeyObject } from 'node:crypto';
import type { DpopOptions } from './dpop.options';
import { signatureCheckOf, type DpopSignatureCheck } from './dpop-signature-check';
import { TokenRejectedError } from './token-rejected.error';

/** JWK members of private or symmetric keys (RFC 7518 §6). */
const SECRET_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
/** Client keys remembered; past it the oldest is dropped (a client minting keys only misses). */
const MAX_KEYS = 10_000;

/** A proof key: what verifies the signature, and its RFC 7638 thumbprint (the token's `cnf.jkt`). @internal */
export interface DpopProofKey {
  readonly key: KeyLike | Uint8Array;
  readonly jkt: string;
  /** How its signatures are checked without `jose`, once `jose` accepted a proof of this header. */
  readonly signature: DpopSignatureCheck | undefined;
}

function rejected(reason: string): TokenRejectedError {
  return new TokenRejectedError(reason, false, 'invalid_dpop_proof');
}

/**
 * The keys DPoP proofs are signed with, read from each proof's protected header (`typ`, an
 * accepted `alg`, a public `jwk`) with `jose`. A client signs every proof with one key, so its
 * proofs share their protected header byte for byte (nothing per request is in it): the key is
 * imported and thumbprinted once per header, not once per request, and kept among the last
 * {@link MAX_KEYS}. A header that is refused is not kept.
 * @internal
 */
export class DpopProofKeys {
  private readonly keys = new Map<string, Promise<DpopProofKey>>();

  constructor(private readonly options: Pick<DpopOptions, 'algorithms'>) {}

  /** The key of `proof` (a compact JWS); rejects with `invalid_dpop_proof` for a bad header. */
  keyOf(proof: string): Promise<DpopProofKey> {
    const protectedHeader = proof.slice(0, proof.indexOf('.'));
    const known = this.keys.get(protectedHeader);
    if (known) return known;
    const read = this.read(proof);
    if (this.keys.size >= MAX_KEYS) this.keys.delete(this.keys.keys().next().value as string);
    this.keys.set(protectedHeader, read);
    read.catch(() => this.keys.delete(protectedHeader));
    return read;
  }

  private async read(proof: string): Promise<DpopProofKey> {
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(proof);
    } catch {
      throw rejected('The DPoP proof is malformed');
    }
    if (header.typ !== 'dpop+jwt') throw rejected('The DPoP proof is not of type dpop+jwt');
    if (typeof header.alg !== 'string' || !this.options.algorithms.includes(header.alg))
      throw rejected('The DPoP proof is signed with an algorithm not accepted');
    const jwk = header.jwk as JWK | undefined;
    if (jwk === null || typeof jwk !== 'object' || Array.isArray(jwk))
      throw rejected('The DPoP proof carries no jwk');
    if (SECRET_MEMBERS.some((member) => Object.hasOwn(jwk, member)))
      throw rejected('The DPoP proof jwk is not a public key');
    let key: KeyLike | Uint8Array;
    try {
      key = await importJWK({ ...jwk, ext: true }, header.alg);
    } catch {
      throw rejected('The DPoP proof jwk is not a key of its algorithm');
    }
    if (key instanceof Uint8Array || key.type !== 'public')
      throw rejected('The DPoP proof jwk is not a public key');
    return {
      key,
      jkt: await calculateJwkThumbprint(jwk, 'sha256'),
      signature: key instanceof KeyObject ? signatureCheckOf(header.alg, key) : undefined,
    };
  }
}
