import type { BearerChallenge } from '../kit/errors/mcp-http-refusal.error';

/** An HTTP quoted-string: `\` and `"` escaped, anything outside printable ASCII a space. @internal */
export function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, '\\$&').replace(/[^\u0020-\u007E]/g, ' ')}"`;
}

/**
 * The parameters of a challenge (RFC 6750 §3, RFC 9728 §5.1), in the order the official SDK
 * writes them. A request that carried no credential gets no `error` (RFC 6750 §3.1); one that did,
 * and was refused without a more precise reason, `invalid_token`. `withError: false` leaves the
 * error out (it belongs to the other scheme's challenge).
 * @internal
 */
export function challengeParameters(
  challenge: BearerChallenge,
  credentialed: boolean,
  resourceMetadataUrl: string | undefined,
  withError = true,
): string[] {
  const error = withError
    ? (challenge.error ?? (credentialed ? 'invalid_token' : undefined))
    : undefined;
  const params: string[] = [];
  if (error !== undefined) {
    params.push(`error=${quoted(error)}`);
    const description =
      challenge.description ??
      (error === 'invalid_token' ? 'The access token was not accepted' : undefined);
    if (description !== undefined) params.push(`error_description=${quoted(description)}`);
  }
  if (challenge.scopes && challenge.scopes.length > 0)
    params.push(`scope=${quoted(challenge.scopes.join(' '))}`);
  if (resourceMetadataUrl !== undefined)
    params.push(`resource_metadata=${quoted(resourceMetadataUrl)}`);
  return params;
}

/** The `WWW-Authenticate` value of a Bearer challenge. @internal */
export function bearerChallengeHeader(
  challenge: BearerChallenge,
  credentialed: boolean,
  resourceMetadataUrl: string | undefined,
  withError = true,
): string {
  const params = challengeParameters(challenge, credentialed, resourceMetadataUrl, withError);
  return params.length === 0 ? 'Bearer' : `Bearer ${params.join(', ')}`;
}
