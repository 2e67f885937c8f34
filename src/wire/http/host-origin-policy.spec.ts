import type { IncomingMessage } from 'node:http';
import { HostOriginPolicy } from './host-origin-policy';

const HOST_REFUSED = 'Host header not allowed by http.allowedHosts';
const ORIGIN_REFUSED = 'Origin header not allowed by http.allowedOrigins';

function request(host: string | undefined, origin?: string): IncomingMessage {
  const headers: Record<string, string> = {};
  if (host !== undefined) headers.host = host;
  if (origin !== undefined) headers.origin = origin;
  return { headers } as unknown as IncomingMessage;
}

describe('HostOriginPolicy', () => {
  const defaults = new HostOriginPolicy([], []);

  describe('Host', () => {
    it.each([
      'localhost',
      'localhost:3000',
      'LOCALHOST:8080',
      '127.0.0.1',
      '127.0.0.1:65535',
      '[::1]',
      '[::1]:3000',
    ])('accepts the local host %p on any port', (host) => {
      expect(defaults.refusal(request(host))).toBeUndefined();
    });

    it.each([
      'evil.com',
      'evil.com:3000',
      'localhost.evil.com',
      'localhost.evil.com:3000',
      '127.0.0.1.nip.io',
      '127.0.0.2',
      '0.0.0.0',
      '[::2]',
      '[::1',
      'localhost@evil.com',
      '',
    ])('refuses %p', (host) => {
      expect(defaults.refusal(request(host))?.message).toBe(HOST_REFUSED);
    });

    it('refuses a request without Host', () => {
      expect(defaults.refusal(request(undefined))?.message).toBe(HOST_REFUSED);
    });

    it('accepts a configured host name on any port, case-insensitively', () => {
      const policy = new HostOriginPolicy(['api.example.com'], []);
      expect(policy.refusal(request('api.example.com'))).toBeUndefined();
      expect(policy.refusal(request('api.example.com:8443'))).toBeUndefined();
      expect(policy.refusal(request('API.Example.COM'))).toBeUndefined();
      expect(policy.refusal(request('other.example.com'))?.message).toBe(HOST_REFUSED);
      expect(policy.refusal(request('evil-api.example.com'))?.message).toBe(HOST_REFUSED);
    });

    it('accepts a configured host:port only on that port', () => {
      const policy = new HostOriginPolicy(['api.example.com:8443'], []);
      expect(policy.refusal(request('api.example.com:8443'))).toBeUndefined();
      expect(policy.refusal(request('api.example.com:9000'))?.message).toBe(HOST_REFUSED);
      expect(policy.refusal(request('api.example.com'))?.message).toBe(HOST_REFUSED);
    });

    it('accepts a configured IPv6 host', () => {
      const policy = new HostOriginPolicy(['[2001:db8::1]'], []);
      expect(policy.refusal(request('[2001:db8::1]:443'))).toBeUndefined();
    });
  });

  describe('Origin', () => {
    it('accepts a request without Origin (non-browser clients)', () => {
      expect(defaults.refusal(request('localhost:3000'))).toBeUndefined();
    });

    it.each([
      'http://localhost',
      'http://localhost:5173',
      'https://127.0.0.1:8443',
      'http://[::1]:3000',
      'HTTP://LOCALHOST:3000',
    ])('accepts the local origin %p', (origin) => {
      expect(defaults.refusal(request('localhost:3000', origin))).toBeUndefined();
    });

    it.each([
      'null',
      'http://evil.com',
      'https://localhost.evil.com',
      'http://localhost@evil.com',
      'file://localhost',
      'chrome-extension://abc',
      'not a url',
      '',
    ])('refuses the origin %p', (origin) => {
      expect(defaults.refusal(request('localhost:3000', origin))?.message).toBe(ORIGIN_REFUSED);
    });

    it('accepts a configured origin, ignoring case and a trailing slash in the configuration', () => {
      const policy = new HostOriginPolicy(['api.example.com'], ['https://App.Example.com/']);
      expect(policy.refusal(request('api.example.com', 'https://app.example.com'))).toBeUndefined();
      expect(policy.refusal(request('api.example.com', 'https://APP.example.com'))).toBeUndefined();
      expect(policy.refusal(request('api.example.com', 'http://app.example.com'))?.message).toBe(
        ORIGIN_REFUSED,
      );
      expect(
        policy.refusal(request('api.example.com', 'https://app.example.com:8443'))?.message,
      ).toBe(ORIGIN_REFUSED);
      expect(policy.refusal(request('api.example.com', 'https://evil.example.com'))?.message).toBe(
        ORIGIN_REFUSED,
      );
    });

    it('checks Host before Origin', () => {
      expect(defaults.refusal(request('evil.com', 'http://localhost'))?.message).toBe(HOST_REFUSED);
    });
  });
});
