import type { IncomingMessage } from 'node:http';
import { createHash } from 'node:crypto';
import {
  base64url,
  calculateJwkThumbprint,
  CompactSign,
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

  it('checks every later proof of a key exactly as jose checks its first one', async () => {
    // The first proof of a header goes through jose; once jose accepted one, the signature and
    // claims of the next are checked directly. Both must say the same of every proof.
    const outcome = (verifying: Promise<unknown>) =>
      verifying.then(
        (verified) => ({ verified }),
        (error: TokenRejectedError) => ({ refused: error.reason }),
      );
    const target = { method: 'POST', url: URL_OF, accessToken: TOKEN };
    const claims = {
      jti: 'jti-1',
      htm: 'POST',
      htu: URL_OF.href,
      iat: NOW / 1000,
      ath: ath(TOKEN),
    };
    const seconds = NOW / 1000;
    for (const alg of ['ES256', 'RS256', 'PS256', 'EdDSA']) {
      const pair = await generateKeyPair(alg, { extractable: true });
      const other = await generateKeyPair(alg);
      const header = { alg, typ: 'dpop+jwt', jwk: await exportJWK(pair.publicKey) };
      const signed = (payload: Record<string, unknown>, key: KeyLike = pair.privateKey) =>
        new SignJWT(payload).setProtectedHeader(header as never).sign(key);
      const raw = (payload: string) =>
        new CompactSign(new TextEncoder().encode(payload))
          .setProtectedHeader(header as never)
          .sign(pair.privateKey);
      const good = await signed(claims);
      const tampered = `${good.slice(0, -4)}${good.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
      const variants: [string, string][] = [
        ['valid', good],
        ['signed by another key', await signed(claims, other.privateKey)],
        ['with a tampered signature', tampered],
        ['with a truncated signature', good.slice(0, -10)],
        [
          'with another payload under the signature',
          `${good.split('.')[0]}.${(await signed({ ...claims, jti: 'x' })).split('.')[1]}.${good.split('.')[2]}`,
        ],
        ['expired', await signed({ ...claims, exp: seconds - 1 })],
        ['expiring now', await signed({ ...claims, exp: seconds })],
        ['not expired', await signed({ ...claims, exp: seconds + 1 })],
        ['with a text exp', await signed({ ...claims, exp: 'soon' })],
        ['not yet valid', await signed({ ...claims, nbf: seconds + 1 })],
        ['valid from now', await signed({ ...claims, nbf: seconds })],
        ['with a text iat', await signed({ ...claims, iat: String(seconds) })],
        ['whose payload is an array', await raw('[1]')],
        ['whose payload is not JSON', await raw('{"jti":')],
      ];
      const warmed = new DpopProofKeys(OPTIONS);
      await verifyDpopProof(good, target, OPTIONS, warmed, NOW);
      for (const [kind, jwt] of variants) {
        const byJose = await outcome(
          verifyDpopProof(jwt, target, OPTIONS, new DpopProofKeys(OPTIONS), NOW),
        );
        const direct = await outcome(verifyDpopProof(jwt, target, OPTIONS, warmed, NOW));
        expect([alg, kind, direct]).toEqual([alg, kind, byJose]);
      }
    }
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
