import { constants, verify, type KeyObject, type VerifyKeyObjectInput } from 'node:crypto';

/**
 * How Node's `crypto.verify` checks a JWS signature of `alg` (RFC 7518 §3.3–3.5, RFC 8037): the
 * digest and the key's verify options, made once per proof key.
 * @internal
 */
export interface DpopSignatureCheck {
  readonly digest: string | null;
  readonly key: VerifyKeyObjectInput;
}

/** The check of `alg` with `key`; `undefined` for an algorithm this module does not verify. @internal */
export function signatureCheckOf(alg: string, key: KeyObject): DpopSignatureCheck | undefined {
  const bits = alg.slice(-3);
  if (/^ES(256|384|512)$/.test(alg))
    return { digest: `sha${bits}`, key: { key, dsaEncoding: 'ieee-p1363' } };
  if (/^RS(256|384|512)$/.test(alg)) return { digest: `sha${bits}`, key: { key } };
  if (/^PS(256|384|512)$/.test(alg))
    return {
      digest: `sha${bits}`,
      key: {
        key,
        padding: constants.RSA_PKCS1_PSS_PADDING,
        saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
      },
    };
  if (alg === 'EdDSA') return { digest: null, key: { key } };
  return undefined;
}

/**
 * Whether `signature` (base64url) signs `signingInput` (the JWS's `header.payload`) under `check`;
 * a signature Node cannot read is not valid.
 * @internal
 */
export function signatureValid(
  check: DpopSignatureCheck,
  signingInput: string,
  signature: string,
): boolean {
  try {
    return verify(
      check.digest,
      Buffer.from(signingInput, 'latin1'),
      check.key,
      Buffer.from(signature, 'base64url'),
    );
  } catch {
    return false;
  }
}
