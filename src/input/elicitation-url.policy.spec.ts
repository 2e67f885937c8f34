import { validateElicitationUrl } from './elicitation-url.policy';
import { InvalidInputRequestError } from './invalid-input-request.error';
import { ConceptSecretFieldPolicy } from './secret-field.policy';

const secrets = new ConceptSecretFieldPolicy();

function accepted(url: string, development = false): boolean {
  try {
    validateElicitationUrl(url, secrets, development);
    return true;
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputRequestError);
    return false;
  }
}

describe('validateElicitationUrl', () => {
  it.each([
    'https://example.com/consent',
    'https://example.com:8443/pay?flow=abc',
    'https://example.com/login?flow=abc&step=2#section',
    'HTTPS://EXAMPLE.COM/x',
    'https://[2001:db8::1]/x',
  ])('accepts %s', (url) => {
    expect(accepted(url)).toBe(true);
  });

  it.each([
    'http://example.com/x',
    'ftp://example.com/x',
    'javascript:alert(1)',
    'data:text/html,hi',
    'file:///etc/passwd',
  ])('refuses the non-https URL %s', (url) => {
    expect(accepted(url)).toBe(false);
    expect(accepted(url, true)).toBe(false);
  });

  it.each(['not a url', '/relative/path', '', 'example.com/x'])(
    'refuses the non-absolute URL %p',
    (url) => {
      expect(accepted(url)).toBe(false);
    },
  );

  describe('plain http', () => {
    it.each([
      'http://localhost/x',
      'http://localhost:3000/cb',
      'http://127.0.0.1:8080/',
      'http://[::1]:9000/',
    ])('allows %s only in development', (url) => {
      expect(accepted(url, true)).toBe(true);
      expect(accepted(url, false)).toBe(false);
    });

    it.each([
      'http://localhost.evil.com/',
      'http://127.0.0.2/',
      'http://0.0.0.0/',
      'http://example.com/',
      'http://localhost@evil.com/',
    ])('refuses %s even in development', (url) => {
      expect(accepted(url, true)).toBe(false);
    });
  });

  it.each([
    'https://user@example.com/',
    'https://user:pass@example.com/',
    'https://:pass@example.com/',
  ])('refuses userinfo in %s', (url) => {
    expect(accepted(url)).toBe(false);
  });

  it.each([
    'token',
    'access_token',
    'password',
    'api_key',
    'apiKey',
    'client_secret',
    'otp',
    'refreshToken',
  ])('refuses the secret-looking query parameter %p', (name) => {
    expect(accepted(`https://example.com/cb?flow=abc&${name}=value`)).toBe(false);
  });

  it.each(['flow=abc', 'state=xyz', 'session=1', 'lang=en', 'return_to=%2Fhome'])(
    'accepts the innocuous query %p',
    (query) => {
      expect(accepted(`https://example.com/cb?${query}`)).toBe(true);
    },
  );

  it.each(['key', 'sig', 'signature', 'jwt', 'code', 'X-Amz-Signature'])(
    'refuses the credential-carrying query parameter %p',
    (name) => {
      expect(accepted(`https://example.com/cb?${name}=value`)).toBe(false);
    },
  );

  it('does not look at query values, only names', () => {
    expect(accepted('https://example.com/search?q=password')).toBe(true);
  });

  it.each(['#access_token=abc', '#token=abc', '#password', '#id_token%3Dabc'])(
    'refuses the secret-looking fragment %p',
    (fragment) => {
      expect(accepted(`https://example.com/cb${fragment}`)).toBe(false);
    },
  );

  it('refuses a fragment with invalid percent-encoding', () => {
    expect(accepted('https://example.com/cb#%E0%A4%A')).toBe(false);
  });

  it('accepts an innocuous fragment', () => {
    expect(accepted('https://example.com/cb#step-2')).toBe(true);
  });

  it('names the offending parameter and the concept', () => {
    expect(() => validateElicitationUrl('https://example.com/?api_key=1', secrets, false)).toThrow(
      /"api_key".*API key or token/,
    );
  });
});
