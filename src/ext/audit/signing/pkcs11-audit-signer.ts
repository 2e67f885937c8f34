import { createHash, createPublicKey } from 'node:crypto';
import { Pkcs11Token, findTokenObjects, type Pkcs11Api } from '../../../extension-api';
import type { AuditSigner } from '../audit-signer';

/** The SPKI header of a P-256 public key, before its 65-byte uncompressed point. */
const P256_SPKI_PREFIX = Buffer.from('3059301306072a8648ce3d020106082a8648ce3d030107034200', 'hex');

/**
 * Signs audit checkpoints with an ECDSA P-256 private key that never leaves a PKCS#11 token (an
 * HSM; SoftHSM2 for tests): `CKM_ECDSA` over the SHA-256 of what is signed, inside the token. The
 * key pair is found by its label (`CKA_LABEL`, the private and the public object alike); the public
 * key is read from the token's public object (`CKA_EC_POINT`). Needs the optional peer `pkcs11js`.
 *
 * @example
 * ```ts
 * const signer = new Pkcs11AuditSigner({ module: '/usr/lib/softhsm/libsofthsm2.so',
 *   tokenLabel: 'mcp', pin: process.env.PKCS11_PIN!, keyLabel: 'audit' });
 * ```
 * @publicApi
 */
export class Pkcs11AuditSigner implements AuditSigner {
  readonly algorithm = 'ES256' as const;
  private readonly token: Pkcs11Token;
  private publicPem: Promise<string> | undefined;

  constructor(private readonly options: Pkcs11AuditSigner.Options) {
    for (const field of ['module', 'tokenLabel', 'pin', 'keyLabel'] as const)
      if (typeof options?.[field] !== 'string' || options[field] === '')
        throw new Error(`Pkcs11AuditSigner needs "${field}" (a non-empty string)`);
    this.token = new Pkcs11Token({
      module: options.module,
      tokenLabel: options.tokenLabel,
      pin: options.pin,
      sessions: 2,
    });
  }

  publicKeyPem(): Promise<string> {
    this.publicPem ??= this.token
      .use(async (api, session) => {
        const handle = this.find(api, session, this.token.ck.CKO_PUBLIC_KEY);
        const [attribute] = api.C_GetAttributeValue(session, handle, [
          { type: this.token.ck.CKA_EC_POINT },
        ]);
        return pemOfEcPoint(attribute.value as Buffer);
      })
      .catch((error: unknown) => {
        this.publicPem = undefined;
        throw error;
      });
    return this.publicPem;
  }

  sign(data: Uint8Array): Promise<Uint8Array> {
    const digest = createHash('sha256').update(data).digest();
    return this.token.use(async (api, session) => {
      const key = this.find(api, session, this.token.ck.CKO_PRIVATE_KEY);
      api.C_SignInit(session, { mechanism: this.token.ck.CKM_ECDSA }, key);
      return api.C_SignAsync(session, digest, Buffer.alloc(64));
    });
  }

  close(): void {
    this.token.close();
  }

  private find(api: Pkcs11Api, session: Buffer, objectClass: number): Buffer {
    const { ck } = this.token;
    const found = findTokenObjects(api, session, [
      { type: ck.CKA_CLASS, value: objectClass },
      { type: ck.CKA_LABEL, value: this.options.keyLabel },
    ]);
    if (found.length !== 1)
      throw new Error(
        `${found.length === 0 ? 'no' : 'more than one'} ${objectClass === ck.CKO_PUBLIC_KEY ? 'public' : 'private'} key labelled "${this.options.keyLabel}" in the token`,
      );
    return found[0];
  }
}

/** The SPKI PEM of a P-256 point as `CKA_EC_POINT` holds it (a DER OCTET STRING, or bare). */
function pemOfEcPoint(value: Buffer): string {
  const point =
    value[0] === 0x04 && value.length === 65 ? value : value.subarray(value.length - 65);
  if (point.length !== 65 || point[0] !== 0x04)
    throw new Error('the token holds no uncompressed P-256 point for the audit key');
  const key = createPublicKey({
    key: Buffer.concat([P256_SPKI_PREFIX, point]),
    format: 'der',
    type: 'spki',
  });
  return key.export({ type: 'spki', format: 'pem' }).toString();
}

// A type-only namespace beside the class keeps its options under its one public name.
// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace Pkcs11AuditSigner {
  /** Which token, and which key pair in it. */
  interface Options {
    /** The PKCS#11 module (`libsofthsm2.so`, your HSM's library). */
    readonly module: string;
    readonly tokenLabel: string;
    /** The user PIN; never logged. */
    readonly pin: string;
    /** `CKA_LABEL` of the key pair (the private and the public object). */
    readonly keyLabel: string;
  }
}
