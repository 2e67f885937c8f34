import { callerScopesOf } from './caller-scopes';

describe('callerScopesOf', () => {
  const headers = {};

  it('is undefined when nobody signed in', () => {
    expect(callerScopesOf({ headers }, undefined)).toBeUndefined();
  });

  it('reads req.auth.scopes first', () => {
    expect(
      callerScopesOf(
        { headers, auth: { scopes: ['a'], token: 't', clientId: 'c' }, user: { scope: 'b' } },
        undefined,
      ),
    ).toEqual(['a']);
  });

  it('reads scopes, scope or scp of req.user, arrays or space-separated', () => {
    expect(callerScopesOf({ headers, user: { scopes: ['a', 'b'] } }, undefined)).toEqual([
      'a',
      'b',
    ]);
    expect(callerScopesOf({ headers, user: { scope: 'a  b' } }, undefined)).toEqual(['a', 'b']);
    expect(callerScopesOf({ headers, user: { scp: ['c'] } }, undefined)).toEqual(['c']);
  });

  it('gives a principal without scopes none', () => {
    expect(callerScopesOf({ headers, user: { id: 1 } }, undefined)).toEqual([]);
    expect(callerScopesOf({ headers, user: 'alice' }, undefined)).toEqual([]);
  });

  it('falls back to the Node request (Fastify)', () => {
    expect(callerScopesOf({ headers }, { user: { scope: 'x' } })).toEqual(['x']);
  });
});
