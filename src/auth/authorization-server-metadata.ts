import { TokenRejectedError } from './token-rejected.error';

const TIMEOUT_MS = 5_000;
const MAX_BYTES = 256 * 1024;

async function fetchJson(url: string): Promise<Record<string, unknown> | undefined> {
  const response = await fetch(url, {
    signal: AbortSignal.timeout(TIMEOUT_MS),
    headers: { accept: 'application/json' },
    redirect: 'error',
  });
  if (!response.ok) return undefined;
  const text = await response.text();
  if (text.length > MAX_BYTES) return undefined;
  const parsed: unknown = JSON.parse(text);
  return parsed !== null && typeof parsed === 'object'
    ? (parsed as Record<string, unknown>)
    : undefined;
}

/**
 * The `jwks_uri` of an issuer, from its RFC 8414 metadata (the well-known path inserted before
 * the issuer's path) or else its OpenID Connect discovery document; the document must name the
 * same issuer. Bounded: 5 s and 256 KiB per document.
 * @internal
 */
export async function discoverJwksUri(issuer: string): Promise<string> {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  const candidates = [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
  for (const candidate of candidates) {
    const metadata = await fetchJson(candidate).catch(() => undefined);
    if (metadata?.issuer === issuer && typeof metadata.jwks_uri === 'string')
      return metadata.jwks_uri;
  }
  throw new TokenRejectedError('The authorization server metadata could not be read', true);
}
