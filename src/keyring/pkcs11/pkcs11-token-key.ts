import type { KeyWrapper } from '../wrapping/key-wrapper.interface';
import { ResidentKeyRejectedError } from '../wrapping/resident-key-rejected.error';
import type { Pkcs11Api, Pkcs11Handle } from './pkcs11-binding';
import { findTokenObjects } from './pkcs11-objects';
import type { Pkcs11Token } from './pkcs11-token';

const TAG_BYTES = 16;
const CMAC_BYTES = 16;
const DERIVED_BYTES = 32;

/**
 * A secret key in the token, found by label (a token object of class CKO_SECRET_KEY): its handle
 * is looked up again whenever the token's sessions were dropped.
 * @internal
 */
export class Pkcs11TokenObject {
  private cached: { generation: number; handle: Pkcs11Handle } | undefined;

  constructor(
    protected readonly token: Pkcs11Token,
    readonly label: string,
  ) {}

  /** The key's handle, seen from `session`. */
  handle(api: Pkcs11Api, session: Pkcs11Handle): Pkcs11Handle {
    const cached = this.cached;
    if (cached && cached.generation === this.token.generation) return cached.handle;
    const { ck } = this.token;
    const found = findTokenObjects(api, session, [
      { type: ck.CKA_CLASS, value: ck.CKO_SECRET_KEY },
      { type: ck.CKA_TOKEN, value: true },
      { type: ck.CKA_LABEL, value: this.label },
    ]);
    if (found.length !== 1)
      throw new Error(
        found.length === 0
          ? `no secret key labelled "${this.label}" in the token`
          : `more than one secret key is labelled "${this.label}" in the token`,
      );
    this.cached = { generation: this.token.generation, handle: found[0] };
    return found[0];
  }

  /** Reads boolean and length attributes of the key (never its value). */
  attributes(api: Pkcs11Api, session: Pkcs11Handle, types: number[]): Map<number, Buffer> {
    const read = api.C_GetAttributeValue(
      session,
      this.handle(api, session),
      types.map((type) => ({ type })),
    );
    return new Map(read.map((attribute) => [attribute.type, attribute.value as Buffer]));
  }
}

/**
 * An AES-256 key that never leaves the token: AES-GCM inside it with the IV and the associated
 * data the keyring gives, and the keyring's derived secrets from NIST SP 800-108 (counter mode,
 * AES-CMAC as the PRF) inside it. Non-extractable and sensitive, or it is refused at load.
 * @internal
 */
export class Pkcs11TokenKey extends Pkcs11TokenObject implements KeyWrapper.ResidentKey {
  /** Refuses a key that is not an AES-256 key kept sensitive and non-extractable. */
  async check(): Promise<void> {
    const { ck } = this.token;
    await this.token.use(async (api, session) => {
      const attributes = this.attributes(api, session, [
        ck.CKA_KEY_TYPE,
        ck.CKA_VALUE_LEN,
        ck.CKA_SENSITIVE,
        ck.CKA_EXTRACTABLE,
        ck.CKA_ENCRYPT,
        ck.CKA_DECRYPT,
        ck.CKA_SIGN,
      ]);
      const number = (type: number) => Number(attributes.get(type)?.readUIntLE(0, 4));
      const flag = (type: number) => attributes.get(type)?.[0] === 1;
      if (!flag(ck.CKA_ENCRYPT) || !flag(ck.CKA_DECRYPT) || !flag(ck.CKA_SIGN))
        throw new Error(
          `the token's key "${this.label}" must allow CKA_ENCRYPT, CKA_DECRYPT and CKA_SIGN (AES-GCM, AES-CMAC)`,
        );
      if (number(ck.CKA_KEY_TYPE) !== ck.CKK_AES || number(ck.CKA_VALUE_LEN) !== 32)
        throw new Error(`the token's key "${this.label}" is not an AES-256 key`);
      if (flag(ck.CKA_EXTRACTABLE) || !flag(ck.CKA_SENSITIVE))
        throw new Error(
          `the token's key "${this.label}" can be extracted: create it with CKA_EXTRACTABLE false and CKA_SENSITIVE true`,
        );
    });
  }

  encrypt(iv: Uint8Array, aad: Uint8Array, plaintext: Uint8Array): Promise<Uint8Array> {
    return this.token.use(async (api, session) => {
      api.C_EncryptInit(session, this.gcm(iv, aad), this.handle(api, session));
      return api.C_EncryptAsync(
        session,
        Buffer.from(plaintext),
        Buffer.alloc(plaintext.length + TAG_BYTES),
      );
    });
  }

  async decrypt(iv: Uint8Array, aad: Uint8Array, sealed: Uint8Array): Promise<Uint8Array> {
    let onData = false;
    try {
      return await this.token.use(
        async (api, session) => {
          api.C_DecryptInit(session, this.gcm(iv, aad), this.handle(api, session));
          return api.C_DecryptAsync(session, Buffer.from(sealed), Buffer.alloc(sealed.length));
        },
        (error, session) => (onData = this.token.failedOnData(error, session)),
      );
    } catch (error) {
      if (onData) throw new ResidentKeyRejectedError();
      throw error;
    }
  }

  derive(label: string): Promise<Uint8Array> {
    return this.token.use(async (api, session) => {
      const blocks: Buffer[] = [];
      for (let counter = 1; counter * CMAC_BYTES <= DERIVED_BYTES; counter++) {
        // [i]_32 || Label || 0x00 || Context (none) || [L]_32, L in bits.
        const input = Buffer.concat([
          uint32(counter),
          Buffer.from(label, 'utf8'),
          Buffer.alloc(1),
          uint32(DERIVED_BYTES * 8),
        ]);
        api.C_SignInit(
          session,
          { mechanism: this.token.ck.CKM_AES_CMAC },
          this.handle(api, session),
        );
        blocks.push(await api.C_SignAsync(session, input, Buffer.alloc(CMAC_BYTES)));
      }
      return Buffer.concat(blocks);
    });
  }

  private gcm(iv: Uint8Array, aad: Uint8Array) {
    return {
      mechanism: this.token.ck.CKM_AES_GCM,
      parameter: {
        type: this.token.ck.CK_PARAMS_AES_GCM,
        iv: Buffer.from(iv),
        ivBits: iv.length * 8,
        aad: Buffer.from(aad),
        tagBits: TAG_BYTES * 8,
      },
    };
  }
}

function uint32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
}
