import { createPublicKey } from 'node:crypto';
import type { AuditSigner } from '../audit-signer';
import { derToP1363 } from './ecdsa-signature';
import { loadKmsSdk, type KmsClientSdk, type KmsCommandClass } from '../../../kit/aws-kms-sdk';

/** The commands of `@aws-sdk/client-kms` the signer sends. */
interface KmsSdk extends KmsClientSdk {
  SignCommand: KmsCommandClass;
  GetPublicKeyCommand: KmsCommandClass;
}

/**
 * Signs audit checkpoints with an asymmetric AWS KMS key (`ECC_NIST_P256`, usage `SIGN_VERIFY`)
 * that never leaves KMS: `Sign` with `ECDSA_SHA_256` (KMS hashes the message), the public key from
 * `GetPublicKey`. Through the official AWS SDK v3 (`@aws-sdk/client-kms`, an optional peer);
 * region, credentials and endpoint from the standard AWS chain, or from `client`.
 *
 * @example
 * ```ts
 * const signer = new AwsKmsAuditSigner({ kmsKeyId: 'arn:aws:kms:eu-west-1:111122223333:key/…' });
 * ```
 * @publicApi
 */
export class AwsKmsAuditSigner implements AuditSigner {
  readonly algorithm = 'ES256' as const;
  private readonly sdk: KmsSdk;
  private readonly client: InstanceType<KmsSdk['KMSClient']>;
  private publicPem: Promise<string> | undefined;

  constructor(options: AwsKmsAuditSigner.Options);
  /** With the SDK module given (tests). @internal */
  constructor(options: AwsKmsAuditSigner.Options, sdk: KmsSdk | undefined);
  constructor(
    private readonly options: AwsKmsAuditSigner.Options,
    sdk?: KmsSdk,
  ) {
    if (typeof options?.kmsKeyId !== 'string' || options.kmsKeyId === '')
      throw new Error('AwsKmsAuditSigner needs "kmsKeyId" (a non-empty string)');
    this.sdk = sdk ?? loadKmsSdk<KmsSdk>('AwsKmsAuditSigner');
    this.client = new this.sdk.KMSClient({ ...options.client });
  }

  publicKeyPem(): Promise<string> {
    this.publicPem ??= this.client
      .send(new this.sdk.GetPublicKeyCommand({ KeyId: this.options.kmsKeyId }))
      .then((answer) => {
        if (!(answer.PublicKey instanceof Uint8Array))
          throw new Error('AWS KMS GetPublicKey answered no PublicKey');
        return createPublicKey({ key: Buffer.from(answer.PublicKey), format: 'der', type: 'spki' })
          .export({ type: 'spki', format: 'pem' })
          .toString();
      })
      .catch((error: unknown) => {
        this.publicPem = undefined;
        throw new Error(`AWS KMS GetPublicKey failed: ${kmsFailure(error)}`, { cause: error });
      });
    return this.publicPem;
  }

  async sign(data: Uint8Array): Promise<Uint8Array> {
    let answer: Record<string, unknown>;
    try {
      answer = await this.client.send(
        new this.sdk.SignCommand({
          KeyId: this.options.kmsKeyId,
          Message: data,
          MessageType: 'RAW',
          SigningAlgorithm: 'ECDSA_SHA_256',
        }),
      );
    } catch (error) {
      throw new Error(`AWS KMS Sign failed: ${kmsFailure(error)}`, { cause: error });
    }
    if (!(answer.Signature instanceof Uint8Array))
      throw new Error('AWS KMS Sign answered no Signature');
    return derToP1363(answer.Signature);
  }

  close(): void {
    this.client.destroy();
  }
}

/** The error's name and message, as the SDK made them. */
function kmsFailure(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown error';
  return `${error.name}: ${error.message}`.slice(0, 300);
}

// A type-only namespace keeps the options under the signer's one public name.
// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace AwsKmsAuditSigner {
  interface Options {
    /** The asymmetric KMS key (id, ARN or alias): `ECC_NIST_P256`, `SIGN_VERIFY`. */
    kmsKeyId: string;
    /** `KMSClient` configuration (region, credentials, endpoint); default: the AWS chain. */
    client?: Record<string, unknown>;
  }
}
