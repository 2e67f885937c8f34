import type { HttpExchange } from '../../pipeline/http-exchange';
import { captureTaskPrincipal, MAX_TASK_PRINCIPAL_BYTES } from './task-principal';

function exchangeWith(request: Record<string, unknown>, raw: Record<string, unknown> = {}) {
  return { request: { headers: {}, ...request }, raw } as unknown as HttpExchange;
}

describe('captureTaskPrincipal', () => {
  it('keeps req.user and req.auth as JSON, never the bearer token', () => {
    const principal = captureTaskPrincipal(
      exchangeWith({
        user: { id: 7, roles: ['agent'] },
        auth: { token: 'secret-token', clientId: 'c1', scopes: ['a'] },
      }),
    );
    expect(principal).toEqual({
      user: { id: 7, roles: ['agent'] },
      auth: { clientId: 'c1', scopes: ['a'] },
    });
    expect(JSON.stringify(principal)).not.toContain('secret-token');
  });

  it('reads the raw request when the framework request has no principal', () => {
    expect(captureTaskPrincipal(exchangeWith({}, { user: 'alice' }))).toEqual({ user: 'alice' });
  });

  it('keeps nothing without a principal, for one that is not JSON, or for one too large', () => {
    expect(captureTaskPrincipal(exchangeWith({}))).toBeUndefined();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(captureTaskPrincipal(exchangeWith({ user: cyclic }))).toBeUndefined();
    expect(
      captureTaskPrincipal(exchangeWith({ user: 'x'.repeat(MAX_TASK_PRINCIPAL_BYTES) })),
    ).toBeUndefined();
  });
});
