import { rfc8785Json } from '../../kit/rfc8785-json';
import { clearFields } from './audit-values';

describe('clearFields (arguments an operation lets the trail record in clear)', () => {
  it('records a `__proto__` member a client sent as the ordinary member it is', () => {
    const args = JSON.parse(
      '{"payee":{"__proto__":{"iban":"X"},"name":"Bob"},"secret":"s"}',
    ) as Record<string, unknown>;
    const clear = clearFields(args, ['payee']);
    expect(rfc8785Json(clear)).toBe('{"payee":{"__proto__":{"iban":"X"},"name":"Bob"}}');
    expect(Object.getPrototypeOf(clear?.payee)).toBe(Object.prototype);
  });
});
