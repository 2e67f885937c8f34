import { TokenRejectedError } from './token-rejected.error';

const TIMEOUT_MS = 5_000;
const MAX_BYTES = 256 * 1024;

async function fetchJson(
  url: string,
  signal: AbortSignal,
): Promise<Record<string, unknown> | undefined> {
  const response = await fetch(url, {
    signal,
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
 * same issuer. Both are asked at once and the first in that order wins. Bounded: 5 s in all (a
 * hanging issuer is answered 503 after 5 s, as documented) and 256 KiB per document.
 * @internal
 */
export async function discoverJwksUri(issuer: string): Promise<string> {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  const candidates = [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
  const signal = AbortSignal.timeout(TIMEOUT_MS);
  const documents = await Promise.all(
    candidates.map((candidate) => fetchJson(candidate, signal).catch(() => undefined)),
  );
  for (const metadata of documents)
    if (metadata?.issuer === issuer && typeof metadata.jwks_uri === 'string')
      return metadata.jwks_uri;
  throw new TokenRejectedError('The authorization server metadata could not be read', true);
}
