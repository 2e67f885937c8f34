/** A PKCS#11 object or session handle, as `pkcs11js` gives it. @internal */
export type Pkcs11Handle = Buffer;

/** One attribute of a template. @internal */
export interface Pkcs11Attribute {
  type: number;
  value?: number | boolean | string | Buffer;
}

/** A mechanism and its parameter. @internal */
export interface Pkcs11Mechanism {
  mechanism: number;
  parameter?: Buffer | number | { type: number; [field: string]: unknown };
}

/**
 * What this package uses of `pkcs11js`'s `PKCS11` class. Structural, so that no declaration file
 * of this package imports the optional peer.
 * @internal
 */
export interface Pkcs11Api {
  load(path: string): void;
  C_Initialize(options?: { flags?: number }): void;
  C_Finalize(): void;
  C_GetSlotList(tokenPresent?: boolean): Pkcs11Handle[];
  C_GetTokenInfo(slot: Pkcs11Handle): { label: string; flags: number };
  C_OpenSession(slot: Pkcs11Handle, flags: number): Pkcs11Handle;
  C_CloseSession(session: Pkcs11Handle): void;
  C_CloseAllSessions(slot: Pkcs11Handle): void;
  C_GetSessionInfo(session: Pkcs11Handle): { state: number };
  C_Login(session: Pkcs11Handle, userType: number, pin?: string): void;
  C_Logout(session: Pkcs11Handle): void;
  C_FindObjectsInit(session: Pkcs11Handle, template: Pkcs11Attribute[]): void;
  C_FindObjects(session: Pkcs11Handle, maxObjectCount: number): Pkcs11Handle[];
  C_FindObjectsFinal(session: Pkcs11Handle): void;
  C_GetAttributeValue(
    session: Pkcs11Handle,
    object: Pkcs11Handle,
    template: Pkcs11Attribute[],
  ): Pkcs11Attribute[];
  C_DestroyObject(session: Pkcs11Handle, object: Pkcs11Handle): void;
  C_EncryptInit(session: Pkcs11Handle, mechanism: Pkcs11Mechanism, key: Pkcs11Handle): void;
  C_EncryptAsync(session: Pkcs11Handle, data: Buffer, out: Buffer): Promise<Buffer>;
  C_DecryptInit(session: Pkcs11Handle, mechanism: Pkcs11Mechanism, key: Pkcs11Handle): void;
  C_DecryptAsync(session: Pkcs11Handle, data: Buffer, out: Buffer): Promise<Buffer>;
  C_SignInit(session: Pkcs11Handle, mechanism: Pkcs11Mechanism, key: Pkcs11Handle): void;
  C_SignAsync(session: Pkcs11Handle, data: Buffer, out: Buffer): Promise<Buffer>;
  C_UnwrapKeyAsync(
    session: Pkcs11Handle,
    mechanism: Pkcs11Mechanism,
    unwrappingKey: Pkcs11Handle,
    wrappedKey: Buffer,
    template: Pkcs11Attribute[],
  ): Promise<Pkcs11Handle>;
}

/** The `pkcs11js` module: the class and the constants this package reads. @internal */
export interface Pkcs11Module {
  readonly PKCS11: new () => Pkcs11Api;
  readonly [constant: string]: unknown;
}

/**
 * Loads the optional peer dependency `pkcs11js` (a native addon), so apps that keep no key in an
 * HSM never load or install it. A missing package is an error that names it.
 * @internal
 */
export function loadPkcs11js(load: (id: string) => unknown = require): Pkcs11Module {
  try {
    return load('pkcs11js') as Pkcs11Module;
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (
      code === 'MODULE_NOT_FOUND' &&
      typeof message === 'string' &&
      message.includes("'pkcs11js'")
    )
      throw new Error(
        'Pkcs11KeyWrapper needs the optional peer dependency "pkcs11js" (npm install pkcs11js; it builds a native addon)',
        { cause: error },
      );
    throw error;
  }
}

/** The PKCS#11 constants this package uses, read from `pkcs11js` once. @internal */
export function pkcs11Constants(module: Pkcs11Module) {
  const read = (name: string): number => {
    const value = module[name];
    if (typeof value !== 'number') throw new Error(`pkcs11js does not define ${name}`);
    return value;
  };
  return {
    CKF_OS_LOCKING_OK: read('CKF_OS_LOCKING_OK'),
    CKF_SERIAL_SESSION: read('CKF_SERIAL_SESSION'),
    CKF_RW_SESSION: read('CKF_RW_SESSION'),
    CKU_USER: read('CKU_USER'),
    CKO_SECRET_KEY: read('CKO_SECRET_KEY'),
    CKO_PRIVATE_KEY: read('CKO_PRIVATE_KEY'),
    CKO_PUBLIC_KEY: read('CKO_PUBLIC_KEY'),
    CKA_EC_POINT: read('CKA_EC_POINT'),
    CKM_ECDSA: read('CKM_ECDSA'),
    CKK_AES: read('CKK_AES'),
    CKA_CLASS: read('CKA_CLASS'),
    CKA_KEY_TYPE: read('CKA_KEY_TYPE'),
    CKA_LABEL: read('CKA_LABEL'),
    CKA_TOKEN: read('CKA_TOKEN'),
    CKA_PRIVATE: read('CKA_PRIVATE'),
    CKA_SENSITIVE: read('CKA_SENSITIVE'),
    CKA_EXTRACTABLE: read('CKA_EXTRACTABLE'),
    CKA_VALUE: read('CKA_VALUE'),
    CKA_VALUE_LEN: read('CKA_VALUE_LEN'),
    CKA_ENCRYPT: read('CKA_ENCRYPT'),
    CKA_DECRYPT: read('CKA_DECRYPT'),
    CKA_SIGN: read('CKA_SIGN'),
    CKA_VERIFY: read('CKA_VERIFY'),
    CKA_WRAP: read('CKA_WRAP'),
    CKA_UNWRAP: read('CKA_UNWRAP'),
    CKA_DERIVE: read('CKA_DERIVE'),
    CKM_AES_GCM: read('CKM_AES_GCM'),
    CKM_AES_CMAC: read('CKM_AES_CMAC'),
    CKM_AES_KEY_WRAP: read('CKM_AES_KEY_WRAP'),
    CK_PARAMS_AES_GCM: read('CK_PARAMS_AES_GCM'),
    CKR_USER_ALREADY_LOGGED_IN: read('CKR_USER_ALREADY_LOGGED_IN'),
    CKR_CRYPTOKI_ALREADY_INITIALIZED: read('CKR_CRYPTOKI_ALREADY_INITIALIZED'),
    CKR_ENCRYPTED_DATA_INVALID: read('CKR_ENCRYPTED_DATA_INVALID'),
    CKR_ENCRYPTED_DATA_LEN_RANGE: read('CKR_ENCRYPTED_DATA_LEN_RANGE'),
    CKR_KEY_HANDLE_INVALID: read('CKR_KEY_HANDLE_INVALID'),
    CKR_OBJECT_HANDLE_INVALID: read('CKR_OBJECT_HANDLE_INVALID'),
    // Session states (PKCS#11 v2.40 §5.7.1), which pkcs11js does not export.
    CKS_RO_USER_FUNCTIONS: 1,
    CKS_RW_USER_FUNCTIONS: 3,
  };
}

/** The constants, by name. @internal */
export type Pkcs11Constants = ReturnType<typeof pkcs11Constants>;
