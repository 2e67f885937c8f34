#!/usr/bin/env node
// Creates a SoftHSM2 token in a directory of its own (its own SOFTHSM2_CONF, never the system's)
// and the keys the keyring reads from an HSM, with the attributes docs/key-rotation.md asks for:
// - token-resident AES-256 keys (`{"pkcs11":"<label>"}` entries): CKA_TOKEN, CKA_PRIVATE,
//   CKA_SENSITIVE true, CKA_EXTRACTABLE false; CKA_ENCRYPT, CKA_DECRYPT and CKA_SIGN (AES-CMAC, for
//   the derived record-integrity key) true; CKA_WRAP, CKA_UNWRAP and CKA_DERIVE false;
// - a wrapping key (CKA_WRAP and CKA_UNWRAP only, sensitive, non-extractable) and data keys wrapped
//   under it with CKM_AES_KEY_WRAP (`{"pkcs11Wrapped":"<base64>"}` entries);
// - ECDSA P-256 key pairs that sign audit checkpoints (Pkcs11AuditSigner, docs/audit.md).
// The tests and the benchmark make their tokens with it; against another PKCS#11 module (your
// HSM's) it creates the same keys there (pass --module and skip --dir).
//
// Usage: node scripts/pkcs11/softhsm-token.mjs --dir <new dir> [--label mcp] [--pin 1234]
//          [--resident k1,k2] [--wrapping wrap] [--wrapped d1,d2] [--signing audit]
//        prints JSON: { SOFTHSM2_CONF, PKCS11_MODULE, PKCS11_TOKEN_LABEL, PKCS11_PIN, wrapped: {id: base64} }
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** Where Debian (and other distributions) install SoftHSM2's PKCS#11 module. */
const SOFTHSM_MODULES = [
  '/usr/lib/softhsm/libsofthsm2.so',
  '/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so',
  '/usr/lib/aarch64-linux-gnu/softhsm/libsofthsm2.so',
  '/usr/local/lib/softhsm/libsofthsm2.so',
];

/** The SoftHSM2 module of this machine, or an error saying how to install it. */
export function softHsmModule() {
  const found = SOFTHSM_MODULES.find((path) => existsSync(path));
  if (!found)
    throw new Error(
      'SoftHSM2 is not installed (no libsofthsm2.so): apt-get install softhsm2 opensc (.ci/run does)',
    );
  return found;
}

/**
 * Initializes a token labelled `label` in `dir` (a new directory): writes `dir/softhsm2.conf`,
 * runs `softhsm2-util --init-token --free` with it. Returns the conf path and the module.
 */
export function createSoftHsmToken({ dir, label = 'mcp', pin = '1234', soPin = '5678' }) {
  const module = softHsmModule();
  mkdirSync(join(dir, 'tokens'), { recursive: true });
  const conf = join(dir, 'softhsm2.conf');
  writeFileSync(
    conf,
    `directories.tokendir = ${join(dir, 'tokens')}\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n`,
  );
  const init = spawnSync(
    'softhsm2-util',
    ['--init-token', '--free', '--label', label, '--pin', pin, '--so-pin', soPin],
    { env: { ...process.env, SOFTHSM2_CONF: conf }, encoding: 'utf8' },
  );
  if (init.error || init.status !== 0)
    throw new Error(
      `softhsm2-util --init-token failed (apt-get install softhsm2): ${init.error?.message ?? init.stderr}`,
    );
  return { conf, module };
}

/** Opens a logged-in read-write session on the token labelled `label`; `close()` ends it. */
export function openToken({ module, label, pin }) {
  const pkcs11js = require('pkcs11js');
  const api = new pkcs11js.PKCS11();
  api.load(module);
  try {
    api.C_Initialize({ flags: pkcs11js.CKF_OS_LOCKING_OK });
  } catch (error) {
    if (error.code !== pkcs11js.CKR_CRYPTOKI_ALREADY_INITIALIZED) throw error;
  }
  const slot = api
    .C_GetSlotList(true)
    .find((each) => api.C_GetTokenInfo(each).label.trim() === label);
  if (!slot) throw new Error(`no token labelled "${label}" in ${module}`);
  const session = api.C_OpenSession(slot, pkcs11js.CKF_SERIAL_SESSION | pkcs11js.CKF_RW_SESSION);
  try {
    api.C_Login(session, pkcs11js.CKU_USER, pin);
  } catch (error) {
    if (error.code !== pkcs11js.CKR_USER_ALREADY_LOGGED_IN) throw error;
  }
  return { api, pkcs11js, slot, session, close: () => api.C_CloseSession(session) };
}

function aesKey(pkcs11js, label, usage) {
  const all = ['ENCRYPT', 'DECRYPT', 'SIGN', 'VERIFY', 'WRAP', 'UNWRAP', 'DERIVE'];
  return [
    { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_SECRET_KEY },
    { type: pkcs11js.CKA_KEY_TYPE, value: pkcs11js.CKK_AES },
    { type: pkcs11js.CKA_VALUE_LEN, value: 32 },
    { type: pkcs11js.CKA_LABEL, value: label },
    { type: pkcs11js.CKA_TOKEN, value: true },
    { type: pkcs11js.CKA_PRIVATE, value: true },
    { type: pkcs11js.CKA_SENSITIVE, value: true },
    { type: pkcs11js.CKA_EXTRACTABLE, value: false },
    ...all.map((name) => ({ type: pkcs11js[`CKA_${name}`], value: usage.includes(name) })),
  ];
}

/** A token-resident AES-256 key the keyring seals with inside the token. */
export function createResidentKey(token, label) {
  const { api, pkcs11js, session } = token;
  api.C_GenerateKey(
    session,
    { mechanism: pkcs11js.CKM_AES_KEY_GEN },
    aesKey(pkcs11js, label, ['ENCRYPT', 'DECRYPT', 'SIGN']),
  );
}

/** An AES-256 wrapping key that wraps and unwraps data keys and does nothing else. */
export function createWrappingKey(token, label) {
  const { api, pkcs11js, session } = token;
  api.C_GenerateKey(
    session,
    { mechanism: pkcs11js.CKM_AES_KEY_GEN },
    aesKey(pkcs11js, label, ['WRAP', 'UNWRAP']),
  );
}

/** A fresh AES-256 data key generated in the token, returned wrapped under `wrappingLabel` (base64). */
export function createWrappedDataKey(token, wrappingLabel) {
  const { api, pkcs11js, session } = token;
  api.C_FindObjectsInit(session, [
    { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_SECRET_KEY },
    { type: pkcs11js.CKA_LABEL, value: wrappingLabel },
  ]);
  const [wrapping] = api.C_FindObjects(session, 1);
  api.C_FindObjectsFinal(session);
  if (!wrapping) throw new Error(`no wrapping key labelled "${wrappingLabel}"`);
  const data = api.C_GenerateKey(session, { mechanism: pkcs11js.CKM_AES_KEY_GEN }, [
    { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_SECRET_KEY },
    { type: pkcs11js.CKA_KEY_TYPE, value: pkcs11js.CKK_AES },
    { type: pkcs11js.CKA_VALUE_LEN, value: 32 },
    { type: pkcs11js.CKA_TOKEN, value: false },
    { type: pkcs11js.CKA_EXTRACTABLE, value: true },
    { type: pkcs11js.CKA_SENSITIVE, value: true },
  ]);
  try {
    const wrapped = api.C_WrapKey(
      session,
      { mechanism: pkcs11js.CKM_AES_KEY_WRAP },
      wrapping,
      data,
      Buffer.alloc(64),
    );
    return wrapped.toString('base64');
  } finally {
    api.C_DestroyObject(session, data);
  }
}

/** The DER of the P-256 curve's OID (prime256v1), as CKA_EC_PARAMS holds it. */
const P256_PARAMS = Buffer.from('06082a8648ce3d030107', 'hex');

/**
 * An ECDSA P-256 key pair for signing audit checkpoints: the private key sensitive, not
 * extractable, CKA_SIGN only; the public key CKA_VERIFY, readable (CKA_EC_POINT). Both labelled
 * `label`.
 */
export function createSigningKeyPair(token, label) {
  const { api, pkcs11js, session } = token;
  api.C_GenerateKeyPair(
    session,
    { mechanism: pkcs11js.CKM_EC_KEY_PAIR_GEN },
    [
      { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PUBLIC_KEY },
      { type: pkcs11js.CKA_KEY_TYPE, value: pkcs11js.CKK_EC },
      { type: pkcs11js.CKA_EC_PARAMS, value: P256_PARAMS },
      { type: pkcs11js.CKA_LABEL, value: label },
      { type: pkcs11js.CKA_TOKEN, value: true },
      { type: pkcs11js.CKA_VERIFY, value: true },
    ],
    [
      { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PRIVATE_KEY },
      { type: pkcs11js.CKA_KEY_TYPE, value: pkcs11js.CKK_EC },
      { type: pkcs11js.CKA_LABEL, value: label },
      { type: pkcs11js.CKA_TOKEN, value: true },
      { type: pkcs11js.CKA_PRIVATE, value: true },
      { type: pkcs11js.CKA_SENSITIVE, value: true },
      { type: pkcs11js.CKA_EXTRACTABLE, value: false },
      { type: pkcs11js.CKA_SIGN, value: true },
    ],
  );
}

/** Everything at once: a token in `dir` with the keys asked for, as environment variables. */
export function makeSoftHsmToken({
  dir,
  label = 'mcp',
  pin = '1234',
  resident = [],
  wrapping,
  wrapped = [],
  signing = [],
}) {
  const { conf, module } = createSoftHsmToken({ dir, label, pin });
  // SoftHSM reads its configuration when the library initializes.
  process.env.SOFTHSM2_CONF = conf;
  const token = openToken({ module, label, pin });
  const keys = {};
  try {
    for (const id of resident) createResidentKey(token, id);
    if (wrapping) createWrappingKey(token, wrapping);
    for (const id of wrapped) keys[id] = createWrappedDataKey(token, wrapping);
    for (const id of signing) createSigningKeyPair(token, id);
  } finally {
    token.close();
  }
  return {
    SOFTHSM2_CONF: conf,
    PKCS11_MODULE: module,
    PKCS11_TOKEN_LABEL: label,
    PKCS11_PIN: pin,
    wrapped: keys,
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      dir: { type: 'string' },
      label: { type: 'string', default: 'mcp' },
      pin: { type: 'string', default: '1234' },
      resident: { type: 'string', default: '' },
      wrapping: { type: 'string' },
      wrapped: { type: 'string', default: '' },
      signing: { type: 'string', default: '' },
    },
  });
  if (!values.dir) {
    console.error(
      'usage: softhsm-token.mjs --dir <new dir> [--resident k1,k2] [--wrapping wrap --wrapped d1] [--signing audit]',
    );
    process.exit(2);
  }
  const list = (text) => text.split(',').filter(Boolean);
  const made = makeSoftHsmToken({
    dir: values.dir,
    label: values.label,
    pin: values.pin,
    resident: list(values.resident),
    wrapping: values.wrapping,
    wrapped: list(values.wrapped),
    signing: list(values.signing),
  });
  console.log(JSON.stringify(made, null, 2));
}
