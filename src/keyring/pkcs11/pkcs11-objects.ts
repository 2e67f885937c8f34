import type { Pkcs11Api, Pkcs11Attribute, Pkcs11Handle } from './pkcs11-binding';

/**
 * The objects of the token matching `template`, seen from `session`: at most two, enough to tell
 * none, one and more than one apart. The search is always closed.
 * @internal
 */
export function findTokenObjects(
  api: Pkcs11Api,
  session: Pkcs11Handle,
  template: Pkcs11Attribute[],
): Pkcs11Handle[] {
  api.C_FindObjectsInit(session, template);
  try {
    return api.C_FindObjects(session, 2);
  } finally {
    api.C_FindObjectsFinal(session);
  }
}
