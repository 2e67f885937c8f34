import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import * as jose from 'jose';
import { DpopProofKeys } from './dpop-proof-keys';
import { TokenRejectedError } from './token-rejected.error';

describe('DpopProofKeys', () => {
  const proofBy = async (header: Record<string, unknown>, jti = 'j') => {
    const { privateKey } = await generateKeyPair('ES256');
    return new SignJWT({ jti })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', ...header } as never)
      .sign(privateKey);
  };

  it('reads a client key once for all its proofs, and each client key apart', async () => {
    const { publicKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = await exportJWK(publicKey);
    const other = await exportJWK(
      (await generateKeyPair('ES256', { extractable: true })).publicKey,
    );
    const keys = new DpopProofKeys({ algorithms: ['ES256'] });
    const imports = jest.spyOn(jose, 'importJWK');
    const first = await keys.keyOf(await proofBy({ jwk }, 'a'));
    const second = await keys.keyOf(await proofBy({ jwk }, 'b'));
    expect(second).toBe(first);
    expect((await keys.keyOf(await proofBy({ jwk: other }))).jkt).not.toBe(first.jkt);
    expect(first.jkt).toBe(await jose.calculateJwkThumbprint(jwk, 'sha256'));
    expect(imports).toHaveBeenCalledTimes(2);
    imports.mockRestore();
  });

  it('refuses a header it cannot use, and keeps nothing of it', async () => {
    const keys = new DpopProofKeys({ algorithms: ['ES256'] });
    const proof = await proofBy({ jwk: { kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'AAAA' } });
    const refused = await keys.keyOf(proof).catch((error: TokenRejectedError) => error);
    expect(refused).toBeInstanceOf(TokenRejectedError);
    expect((refused as TokenRejectedError).error).toBe('invalid_dpop_proof');
    expect((keys as unknown as { keys: Map<string, unknown> }).keys.size).toBe(0);
  });
});
