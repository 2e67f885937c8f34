import type { KeyWrapper } from '../wrapping/key-wrapper.interface';
import type { Pkcs11Module } from './pkcs11-binding';
import { Pkcs11Token } from './pkcs11-token';
import { Pkcs11TokenKey, Pkcs11TokenObject } from './pkcs11-token-key';

const DEFAULT_SESSIONS = 4;

/**
 * Keys held in an HSM over PKCS#11 (any module: SoftHSM2, CloudHSM, Luna, nShield, a YubiHSM),
 * through the `pkcs11js` binding (an optional peer dependency, a native addon). Two kinds of
 * keyring entry:
 *
 * - `{ pkcs11: '<key label>' }` — a token-resident AES-256 key: request state is sealed and opened
 *   with AES-GCM inside the token; the key must be sensitive and non-extractable (refused
 *   otherwise). Record integrity and fingerprints use 32-byte secrets the token derives from it
 *   (NIST SP 800-108 over AES-CMAC), so the key needs CKA_ENCRYPT, CKA_DECRYPT and CKA_SIGN.
 * - `{ pkcs11Wrapped: '<base64>' }` — a data key wrapped (CKM_AES_KEY_WRAP, RFC 3394) under the
 *   token's wrapping key `wrappingKeyLabel`: unwrapped inside the token into a session object, read
 *   once and destroyed; the keyring then holds it in memory (envelope encryption).
 *
 * Sessions are pooled (`sessions`, default 4) and logged in with the user PIN; a dropped session is
 * replaced and the operation tried once more on a fresh one. A token that cannot be reached fails
 * the round with the retryable `-32000 Server busy: the key store is unavailable`.
 *
 * @example
 * ```ts
 * McpModule.forRoot({
 *   keyring: {
 *     active: 'k1',
 *     keys: { k1: { pkcs11: 'mcp-k1' } },
 *     wrapper: new Pkcs11KeyWrapper({
 *       module: '/usr/lib/softhsm/libsofthsm2.so',
 *       tokenLabel: 'mcp',
 *       pin: process.env.PKCS11_PIN!,
 *     }),
 *   },
 * });
 * ```
 * @publicApi
 */
export class Pkcs11KeyWrapper implements KeyWrapper {
  private token: Pkcs11Token | undefined;
  private readonly options: Required<Omit<Pkcs11KeyWrapper.Options, 'wrappingKeyLabel'>> &
    Pick<Pkcs11KeyWrapper.Options, 'wrappingKeyLabel'>;

  constructor(options: Pkcs11KeyWrapper.Options);
  /** With the binding given (tests). @internal */
  constructor(options: Pkcs11KeyWrapper.Options, binding: Pkcs11Module | undefined);
  constructor(
    options: Pkcs11KeyWrapper.Options,
    private readonly binding?: Pkcs11Module,
  ) {
    for (const field of ['module', 'tokenLabel', 'pin'] as const)
      if (typeof options?.[field] !== 'string' || options[field] === '')
        throw new Error(`Pkcs11KeyWrapper needs "${field}" (a non-empty string)`);
    const sessions = options.sessions ?? DEFAULT_SESSIONS;
    if (!Number.isSafeInteger(sessions) || sessions < 1 || sessions > 256)
      throw new Error('Pkcs11KeyWrapper "sessions" must be an integer from 1 to 256');
    this.options = { ...options, sessions };
  }

  async unwrap(_keyId: string, entry: KeyWrapper.Entry): Promise<KeyWrapper.Unwrapped> {
    const [field] = Object.keys(entry);
    if (field === 'pkcs11') {
      const key = new Pkcs11TokenKey(this.connected(), entry.pkcs11);
      await key.check();
      return key;
    }
    if (field === 'pkcs11Wrapped') return this.unwrapDataKey(entry.pkcs11Wrapped);
    throw new Error(`Pkcs11KeyWrapper reads "pkcs11" and "pkcs11Wrapped" entries, not "${field}"`);
  }

  close(): void {
    this.token?.close();
    this.token = undefined;
  }

  /** A data key unwrapped in the token into an extractable session object, read, then destroyed. */
  private async unwrapDataKey(reference: string): Promise<Uint8Array> {
    const label = this.options.wrappingKeyLabel;
    if (label === undefined)
      throw new Error('a "pkcs11Wrapped" entry needs the wrapper\'s "wrappingKeyLabel"');
    const wrapped = Buffer.from(reference, 'base64');
    if (wrapped.length !== 40) throw new Error('a "pkcs11Wrapped" entry is 40 bytes in base64');
    const token = this.connected();
    const wrapping = new Pkcs11TokenObject(token, label);
    const { ck } = token;
    return token.use(async (api, session) => {
      const key = await api.C_UnwrapKeyAsync(
        session,
        { mechanism: ck.CKM_AES_KEY_WRAP },
        wrapping.handle(api, session),
        wrapped,
        [
          { type: ck.CKA_CLASS, value: ck.CKO_SECRET_KEY },
          { type: ck.CKA_KEY_TYPE, value: ck.CKK_AES },
          { type: ck.CKA_TOKEN, value: false },
          { type: ck.CKA_SENSITIVE, value: false },
          { type: ck.CKA_EXTRACTABLE, value: true },
        ],
      );
      try {
        const [value] = api.C_GetAttributeValue(session, key, [{ type: ck.CKA_VALUE }]);
        return Buffer.from(value.value as Buffer);
      } finally {
        api.C_DestroyObject(session, key);
      }
    });
  }

  private connected(): Pkcs11Token {
    this.token ??= new Pkcs11Token(this.options, this.binding);
    return this.token;
  }
}

// A type-only namespace keeps the options under the wrapper's one public name.
// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace Pkcs11KeyWrapper {
  /** How to reach the token. */
  interface Options {
    /** Path of the PKCS#11 module (`/usr/lib/softhsm/libsofthsm2.so`, a vendor's `.so`). */
    module: string;
    /** Label of the token (`CKA_LABEL` of the token info), e.g. `mcp`. */
    tokenLabel: string;
    /** The user PIN. Keep it in your secret store; it is never logged. */
    pin: string;
    /** Label of the AES wrapping key (CKA_UNWRAP) for `pkcs11Wrapped` entries. */
    wrappingKeyLabel?: string;
    /** Sessions open at most: operations in flight at once. Default 4. */
    sessions?: number;
  }
}
