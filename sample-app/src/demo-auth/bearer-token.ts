/**
 * `Bearer`, in any case, then spaces or tabs, then an RFC 6750 token (letters, digits, `-._~+/`,
 * then `=` padding).
 */
const BEARER = /^bearer[ \t]+([A-Za-z0-9._~+/-]+=*)$/i;
/** Longest token accepted, so a partition or log line built from it stays short. */
const MAX_TOKEN_LENGTH = 256;

/**
 * The token of an `Authorization: Bearer <token>` header, the one place the sample app reads that
 * header: the role guard, the state partition and the admin API all see the same caller. The
 * scheme is matched in any case and extra spaces or tabs are ignored; anything else (no header,
 * another scheme, a malformed or over-long token) is `undefined`.
 */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (typeof authorization !== 'string') return undefined;
  const token = BEARER.exec(authorization.trim())?.[1];
  return token !== undefined && token.length <= MAX_TOKEN_LENGTH ? token : undefined;
}
