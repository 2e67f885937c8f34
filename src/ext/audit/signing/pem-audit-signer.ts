import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  type KeyObject,
} from 'node:crypto';
import type { AuditSigner } from '../audit-signer';

/**
 * Signs audit checkpoints with a private key held in this process: an ECDSA P-256 (`ES256`) or
 * Ed25519 (`EdDSA`) key from a PEM (PKCS#8 or SEC1). For development and tests; in production keep
 * the key in an HSM (`Pkcs11AuditSigner`) or in AWS KMS (`AwsKmsAuditSigner`).
 *
 * @example
 * ```ts
 * McpModule.forRoot({ audit: { file: 'audit.jsonl', signer: new PemAuditSigner(readFileSync('audit-key.pem', 'utf8')) } })
 * ```
 * @publicApi
 */
export class PemAuditSigner implements AuditSigner {
  readonly algorithm: 'ES256' | 'EdDSA';
  private readonly key: KeyObject;
  private readonly publicPem: string;

  constructor(privateKeyPem: string) {
    let key: KeyObject;
    try {
      key = createPrivateKey(privateKeyPem);
    } catch {
      // The message of a key that does not parse could quote it: never shown.
      throw new Error('PemAuditSigner needs a PEM private key (PKCS#8 or SEC1)');
    }
    if (key.asymmetricKeyType === 'ed25519') this.algorithm = 'EdDSA';
    else if (
      key.asymmetricKeyType === 'ec' &&
      key.asymmetricKeyDetails?.namedCurve === 'prime256v1'
    )
      this.algorithm = 'ES256';
    else throw new Error('PemAuditSigner needs an ECDSA P-256 or Ed25519 private key');
    this.key = key;
    this.publicPem = createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString();
  }

  /** A signer with a key made now and held nowhere else: each start has a new one. @internal */
  static ephemeral(): PemAuditSigner {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    return new PemAuditSigner(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  }

  publicKeyPem(): Promise<string> {
    return Promise.resolve(this.publicPem);
  }

  sign(data: Uint8Array): Promise<Uint8Array> {
    const signature =
      this.algorithm === 'EdDSA'
        ? sign(null, data, this.key)
        : sign('sha256', data, { key: this.key, dsaEncoding: 'ieee-p1363' });
    return Promise.resolve(signature);
  }
}
