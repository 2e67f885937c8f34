import type { BearerChallenge } from '../kit/errors/mcp-http-refusal.error';
import { challengeParameters, quoted } from './bearer-challenge.header';

/**
 * The `WWW-Authenticate` value of a DPoP challenge (RFC 9449 §7.1): the parameters of a Bearer
 * one, then `algs`, the proof algorithms accepted.
 * @internal
 */
export function dpopChallengeHeader(
  challenge: BearerChallenge,
  credentialed: boolean,
  resourceMetadataUrl: string | undefined,
  algorithms: readonly string[],
  withError = true,
): string {
  const params = challengeParameters(challenge, credentialed, resourceMetadataUrl, withError);
  params.push(`algs=${quoted(algorithms.join(' '))}`);
  return `DPoP ${params.join(', ')}`;
}
