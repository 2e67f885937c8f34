import type { IncomingMessage } from 'node:http';
import { createHash } from 'node:crypto';
import {
  base64url,
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  SignJWT,
  type JWK,
  type KeyLike,
} from 'jose';
import { DEFAULT_DPOP_ALGORITHMS } from './dpop.options';
import { dpopProofOf, verifyDpopProof } from './dpop-proof.verifier';
import { DpopProofKeys } from './dpop-proof-keys';
import { TokenRejectedError } from './token-rejected.error';

const URL_OF = new URL('https://api.example.com/mcp');
const TOKEN = 'the-access-token';
const OPTIONS = { algorithms: DEFAULT_DPOP_ALGORITHMS, proofWindowSeconds: 60 };
const NOW = 1_900_000_000_000;
const ath = (token: string) => createHash('sha256').update(token).digest('base64url');

describe('verifyDpopProof', () => {
  let privateKey: KeyLike;
  let publicJwk: JWK;
  let privateJwk: JWK;

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    privateKey = pair.privateKey;
    publicJwk = await exportJWK(pair.publicKey);
    privateJwk = await exportJWK(pair.privateKey);
  });

  /** A proof for `POST https://api.example.com/mcp` with TOKEN at NOW; `claims`/`header` override. */
  const proof = (
    claims: Record<string, unknown> = {},
    header: Record<string, unknown> = {},
    key: KeyLike | Uint8Array = privateKey,
  ) =>
    new SignJWT({
      jti: 'jti-1',
      htm: 'POST',
      htu: 'https://api.example.com/mcp',
      iat: NOW / 1000,
      ath: ath(TOKEN),
      ...claims,
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: publicJwk, ...header } as never)
      .sign(key);

  const verify = (jwt: string, method = 'POST') =>
    verifyDpopProof(
      jwt,
      { method, url: URL_OF, accessToken: TOKEN },
      OPTIONS,
      new DpopProofKeys(OPTIONS),
      NOW,
    );

  const refusal = async (jwt: Promise<string> | string, method?: string) => {
    const error = await verify(await jwt, method).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(TokenRejectedError);
    expect((error as TokenRejectedError).error).toBe('invalid_dpop_proof');
    return (error as TokenRejectedError).reason;
  };

  it('accepts a proof of this request and token, with the key thumbprint, jti and iat', async () => {
    const verified = await verify(await proof({ htu: 'https://API.example.com:443/mcp?q=1#f' }));
    expect(verified).toEqual({
      jkt: await calculateJwkThumbprint(publicJwk, 'sha256'),
      jti: 'jti-1',
      iat: NOW / 1000,
      nonce: undefined,
    });
  });

  it.each([
    ['for another method', () => proof(), 'GET', 'The DPoP proof is for another HTTP method'],
    [
      'for another URL',
      () => proof({ htu: 'https://api.example.com/other' }),
      undefined,
      'The DPoP proof is for another URL',
    ],
    [
      'for another scheme',
      () => proof({ htu: 'http://api.example.com/mcp' }),
      undefined,
      'The DPoP proof is for another URL',
    ],
    [
      'for another token',
      () => proof({ ath: ath('another-token') }),
      undefined,
      'The DPoP proof is for another access token',
    ],
    [
      'without ath',
      () => proof({ ath: undefined }),
      undefined,
      'The DPoP proof is for another access token',
    ],
    [
      'too old',
      () => proof({ iat: NOW / 1000 - 61 }),
      undefined,
      'The DPoP proof was not issued recently enough',
    ],
    [
      'from the future',
      () => proof({ iat: NOW / 1000 + 61 }),
      undefined,
      'The DPoP proof was not issued recently enough',
    ],
    ['without jti', () => proof({ jti: undefined }), undefined, 'The DPoP proof has no valid jti'],
    [
      'of another typ',
      () => proof({}, { typ: 'JWT' }),
      undefined,
      'The DPoP proof is not of type dpop+jwt',
    ],
  ])('refuses a proof %s', async (_kind, jwt, method, reason) => {
    expect(await refusal(jwt(), method)).toBe(reason);
  });

  it('refuses a proof signed by another key than the one in its header', async () => {
    const other = await generateKeyPair('ES256');
    expect(await refusal(proof({}, {}, other.privateKey))).toBe(
      'The DPoP proof signature is not valid',
    );
  });

  it('refuses alg none, HS256 and algorithms not allowed', async () => {
    const unsigned = `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'dpop+jwt', jwk: publicJwk }))}.${base64url.encode(JSON.stringify({ jti: 'x', htm: 'POST', htu: URL_OF.href, iat: NOW / 1000, ath: ath(TOKEN) }))}.`;
    expect(await refusal(unsigned)).toBe('The DPoP proof is signed with an algorithm not accepted');
    const secret = new TextEncoder().encode('a-shared-secret-of-thirty-two-bytes!');
    const hs = await new SignJWT({ jti: 'x', htm: 'POST', htu: URL_OF.href, iat: NOW / 1000 })
      .setProtectedHeader({
        alg: 'HS256',
        typ: 'dpop+jwt',
        jwk: { kty: 'oct', k: base64url.encode(secret) },
      } as never)
      .sign(secret);
    expect(await refusal(hs)).toBe('The DPoP proof is signed with an algorithm not accepted');
    const onlyRsa = await verifyDpopProof(
      await proof(),
      { method: 'POST', url: URL_OF, accessToken: TOKEN },
      { algorithms: ['RS256'], proofWindowSeconds: 60 },
      new DpopProofKeys({ algorithms: ['RS256'] }),
      NOW,
    ).catch((error: TokenRejectedError) => error.reason);
    expect(onlyRsa).toBe('The DPoP proof is signed with an algorithm not accepted');
  });

  it('refuses a private or missing jwk', async () => {
    expect(await refusal(proof({}, { jwk: privateJwk }))).toBe(
      'The DPoP proof jwk is not a public key',
    );
    expect(await refusal(proof({}, { jwk: undefined }))).toBe('The DPoP proof carries no jwk');
  });
});

describe('dpopProofOf', () => {
  const request = (dpop: unknown) => ({ headers: { dpop } }) as unknown as IncomingMessage;
  const reasonOf = (dpop: unknown) => {
    try {
      dpopProofOf(request(dpop));
      return undefined;
    } catch (error) {
      return (error as TokenRejectedError).reason;
    }
  };

  it('takes the one DPoP header field, bounded, and refuses anything else before parsing', () => {
    expect(reasonOf('a.b.c')).toBeUndefined();
    expect(reasonOf(undefined)).toBe('The request carries no DPoP proof');
    expect(reasonOf('a.b.c, d.e.f')).toBe('The request carries more than one DPoP proof');
    expect(reasonOf(`a.${'b'.repeat(9000)}.c`)).toBe('The DPoP proof is too large');
    expect(reasonOf('not a jws')).toBe('The DPoP proof is malformed');
  });
});
