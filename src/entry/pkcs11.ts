// `nestjs-mcp/pkcs11`: keys held in an HSM over PKCS#11. Importing this subpath needs the optional
// peer `pkcs11js` (a native addon).

export { Pkcs11KeyWrapper } from '../keyring/pkcs11/pkcs11-key-wrapper';
