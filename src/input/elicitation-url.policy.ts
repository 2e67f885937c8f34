import { InvalidInputRequestError } from './invalid-input-request.error';
import { normaliseWords, type SecretFieldPolicy } from './secret-field.policy';

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
/** Query parameter names that carry credentials in URLs (signed URLs, API keys, OAuth codes). */
const CREDENTIAL_PARAMETER =
  /^(key|sig|signature|code|auth|x amz (signature|credential|security token))$/;

function parsed(raw: unknown): URL {
  try {
    return new URL(raw as string);
  } catch {
    throw new InvalidInputRequestError('URL elicitation needs an absolute URL');
  }
}

/** What a URL elicitation may be built with: an absolute URL. @internal */
export function validateElicitationUrlShape(raw: unknown): void {
  if (typeof raw !== 'string') throw new InvalidInputRequestError('URL elicitation needs a URL');
  parsed(raw);
}

/**
 * Checks a URL elicitation target against the module's policy when it is emitted: https (plain
 * http only to a local host in development), no userinfo, and no secret-looking query parameter
 * or fragment. The URL should carry an opaque, single-purpose handle that the server maps to the
 * initiating user.
 * @internal
 */
export function validateElicitationUrl(
  raw: string,
  secrets: SecretFieldPolicy,
  development: boolean,
): void {
  const url = parsed(raw);
  const localDevelopment = development && url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname);
  if (url.protocol !== 'https:' && !localDevelopment) {
    throw new InvalidInputRequestError(
      'URL elicitation must use an https URL (plain http is allowed only to localhost in development)',
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new InvalidInputRequestError(
      'URL elicitation must not carry userinfo (user:password@) in the URL',
    );
  }
  for (const name of url.searchParams.keys()) {
    if (CREDENTIAL_PARAMETER.test(normaliseWords(name))) {
      throw new InvalidInputRequestError(
        `URL elicitation query parameter "${name}" carries a credential; put an opaque handle in the URL instead`,
      );
    }
    const concept = secrets.secretConcept({ name });
    if (concept)
      throw new InvalidInputRequestError(
        `URL elicitation query parameter "${name}" looks like a secret (${concept}); put an opaque handle in the URL instead`,
      );
  }
  let fragment: string;
  try {
    fragment = normaliseWords(decodeURIComponent(url.hash.replace(/^#/, '')));
  } catch {
    throw new InvalidInputRequestError('URL elicitation fragment is not valid percent-encoding');
  }
  if (fragment !== '' && secrets.secretConcept({ name: fragment })) {
    throw new InvalidInputRequestError('URL elicitation fragment looks like it carries a secret');
  }
}
