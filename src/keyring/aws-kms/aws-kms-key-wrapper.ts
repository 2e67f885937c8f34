import type { KeyWrapper } from '../wrapping/key-wrapper.interface';
import { kmsFailure } from './aws-kms-failure';
import { loadKmsSdk, type KmsClientSdk, type KmsCommandClass } from '../../kit/aws-kms-sdk';

/** The commands of `@aws-sdk/client-kms` the wrapper sends. @internal */
interface KmsSdk extends KmsClientSdk {
  DecryptCommand: KmsCommandClass;
  GenerateDataKeyCommand: KmsCommandClass;
}

/** Key material of an AES-256 data key. */
const DATA_KEY_BYTES = 32;

/**
 * Data keys held by AWS KMS (envelope encryption), through the official AWS SDK v3
 * (`@aws-sdk/client-kms`, an optional peer dependency). A keyring entry `{ kms: '<base64>' }` is a
 * data key's `CiphertextBlob` from `GenerateDataKey`: the wrapper `Decrypt`s it once, when the
 * keyring loads or the key is staged, with an encryption context naming the endpoint and the key
 * id — so a blob made for another endpoint or key id does not decrypt. KMS is never called per
 * request. Region, credentials and endpoint come from the standard AWS configuration chain
 * (`AWS_REGION`, the credential provider chain, `AWS_ENDPOINT_URL`), or from `client`.
 *
 * {@link AwsKmsKeyWrapper.generateDataKey} makes a new entry (for `KeyringManager.stage` or the
 * first keyring).
 *
 * @example
 * ```ts
 * const wrapper = new AwsKmsKeyWrapper({
 *   kmsKeyId: 'arn:aws:kms:eu-west-1:111122223333:key/…',
 *   endpoint: 'https://mcp.example.com/mcp',
 * });
 * McpModule.forRoot({ keyring: { active: 'k1', keys: { k1: { kms: process.env.K1_BLOB! } }, wrapper } });
 * ```
 * @publicApi
 */
export class AwsKmsKeyWrapper implements KeyWrapper {
  private readonly sdk: KmsSdk;
  private readonly client: InstanceType<KmsSdk['KMSClient']>;

  constructor(options: AwsKmsKeyWrapper.Options);
  /** With the SDK module given (tests). @internal */
  constructor(options: AwsKmsKeyWrapper.Options, sdk: KmsSdk | undefined);
  constructor(
    private readonly options: AwsKmsKeyWrapper.Options,
    sdk?: KmsSdk,
  ) {
    for (const field of ['kmsKeyId', 'endpoint'] as const)
      if (typeof options?.[field] !== 'string' || options[field] === '')
        throw new Error(`AwsKmsKeyWrapper needs "${field}" (a non-empty string)`);
    this.sdk = sdk ?? loadKmsSdk<KmsSdk>('AwsKmsKeyWrapper');
    this.client = new this.sdk.KMSClient({ ...options.client });
  }

  async unwrap(keyId: string, entry: KeyWrapper.Entry): Promise<Uint8Array> {
    const [field] = Object.keys(entry);
    if (field !== 'kms') throw new Error(`AwsKmsKeyWrapper reads "kms" entries, not "${field}"`);
    let answer: Record<string, unknown>;
    try {
      answer = await this.client.send(
        new this.sdk.DecryptCommand({
          CiphertextBlob: Buffer.from(entry.kms, 'base64'),
          KeyId: this.options.kmsKeyId,
          EncryptionContext: this.contextOf(keyId),
        }),
      );
    } catch (error) {
      throw new Error(`AWS KMS Decrypt failed: ${kmsFailure(error)}`, { cause: error });
    }
    const plaintext = answer.Plaintext;
    if (!(plaintext instanceof Uint8Array) || plaintext.length !== DATA_KEY_BYTES) {
      if (plaintext instanceof Uint8Array) plaintext.fill(0);
      throw new Error(`AWS KMS Decrypt did not answer a ${DATA_KEY_BYTES}-byte data key`);
    }
    return plaintext;
  }

  /**
   * A new data key for `keyId`, as the keyring entry to store (`{ kms: '<base64 CiphertextBlob>' }`):
   * KMS makes it under `kmsKeyId` with this wrapper's encryption context; the plaintext it also
   * answers is zeroed here and never leaves.
   */
  async generateDataKey(keyId: string): Promise<{ kms: string }> {
    let answer: Record<string, unknown>;
    try {
      answer = await this.client.send(
        new this.sdk.GenerateDataKeyCommand({
          KeyId: this.options.kmsKeyId,
          KeySpec: 'AES_256',
          EncryptionContext: this.contextOf(keyId),
        }),
      );
    } catch (error) {
      throw new Error(`AWS KMS GenerateDataKey failed: ${kmsFailure(error)}`, { cause: error });
    }
    if (answer.Plaintext instanceof Uint8Array) answer.Plaintext.fill(0);
    if (!(answer.CiphertextBlob instanceof Uint8Array))
      throw new Error('AWS KMS GenerateDataKey answered no CiphertextBlob');
    return { kms: Buffer.from(answer.CiphertextBlob).toString('base64') };
  }

  close(): void {
    this.client.destroy();
  }

  private contextOf(keyId: string): Record<string, string> {
    return { 'nestjs-mcp:endpoint': this.options.endpoint, 'nestjs-mcp:key-id': keyId };
  }
}

// A type-only namespace keeps the options under the wrapper's one public name.
// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace AwsKmsKeyWrapper {
  interface Options {
    /** The KMS key (id, ARN or alias) data keys are made and decrypted under. */
    kmsKeyId: string;
    /**
     * The MCP endpoint these keys protect (`https://mcp.example.com/mcp`): part of the encryption
     * context, so a data key made for another endpoint does not decrypt here.
     */
    endpoint: string;
    /** `KMSClient` configuration (region, credentials, endpoint); default: the AWS chain. */
    client?: Record<string, unknown>;
  }
}
