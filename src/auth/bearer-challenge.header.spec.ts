import { bearerChallengeHeader } from './bearer-challenge.header';
import { dpopChallengeHeader } from './dpop-challenge.header';

describe('bearerChallengeHeader', () => {
  const metadata = 'https://api.example.com/.well-known/oauth-protected-resource/mcp';

  it('names no error for a request without a credential (RFC 6750 §3.1)', () => {
    expect(bearerChallengeHeader({}, false, metadata)).toBe(
      `Bearer resource_metadata="${metadata}"`,
    );
    expect(bearerChallengeHeader({}, false, undefined)).toBe('Bearer');
  });

  it('says invalid_token for a refused credential, and the scopes an operation needs', () => {
    expect(bearerChallengeHeader({ scopes: ['a', 'b:c'] }, true, metadata)).toBe(
      `Bearer error="invalid_token", error_description="The access token was not accepted", scope="a b:c", resource_metadata="${metadata}"`,
    );
  });

  it('writes the step-up challenge in the SDK order, quoting what must be quoted', () => {
    expect(
      bearerChallengeHeader(
        { error: 'insufficient_scope', description: 'needs "more"\\é', scopes: ['pay'] },
        true,
        undefined,
      ),
    ).toBe(
      'Bearer error="insufficient_scope", error_description="needs \\"more\\"\\\\ ", scope="pay"',
    );
  });

  it('leaves the error to the other scheme when told to', () => {
    expect(bearerChallengeHeader({ error: 'invalid_dpop_proof' }, true, metadata, false)).toBe(
      `Bearer resource_metadata="${metadata}"`,
    );
  });
});

describe('dpopChallengeHeader', () => {
  it('writes the parameters of a Bearer challenge, then algs (RFC 9449 §7.1)', () => {
    expect(
      dpopChallengeHeader(
        { error: 'use_dpop_nonce', description: 'A fresh DPoP nonce is required' },
        true,
        'https://a/m',
        ['ES256', 'RS256'],
      ),
    ).toBe(
      'DPoP error="use_dpop_nonce", error_description="A fresh DPoP nonce is required", resource_metadata="https://a/m", algs="ES256 RS256"',
    );
    expect(dpopChallengeHeader({}, false, undefined, ['ES256'])).toBe('DPoP algs="ES256"');
  });
});
