/** What the caller of a KMS operation may do about each error KMS names, when it is known. */
const KMS_ERRORS: Readonly<Record<string, string>> = {
  AccessDeniedException: 'the credentials may not use this KMS key',
  IncorrectKeyException: 'the blob was made under another KMS key',
  InvalidCiphertextException:
    'the blob is not one KMS made for this key id, endpoint and KMS key (its encryption context)',
  KMSInvalidStateException: 'the KMS key is disabled or pending deletion',
  DisabledException: 'the KMS key is disabled',
  NotFoundException: 'no such KMS key',
  KeyUnavailableException: 'the KMS key is unavailable; try again later',
  DependencyTimeoutException: 'KMS timed out; try again later',
  KMSInternalException: 'KMS failed internally; try again later',
  ThrottlingException: 'KMS throttled the request; try again later',
  UnrecognizedClientException: 'KMS does not know these credentials',
  InvalidSignatureException: 'KMS refused the request signature (credentials or clock)',
  ExpiredTokenException: 'the session credentials have expired',
  CredentialsProviderError: 'no AWS credentials were found (the AWS credential provider chain)',
  TimeoutError: 'KMS did not answer in time',
};

/** Network failures, by their system error code: KMS could not be reached. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ECONNABORTED',
]);

const SYSTEM_CODE = new RegExp(`\\b(${[...UNREACHABLE].join('|')})\\b`);
const ERROR_NAME = /^[A-Za-z][A-Za-z0-9]{0,63}$/;

/**
 * A KMS failure as a message that names it and never carries what the SDK's message may (the
 * endpoint's address, an account id or a key ARN): the exception KMS answered and what it means,
 * "unreachable" with the system error code, or what came back instead of a KMS answer.
 * @internal
 */
export function kmsFailure(error: unknown): string {
  const { name, code, message, $fault, $metadata } = (error ?? {}) as {
    name?: unknown;
    code?: unknown;
    message?: unknown;
    $fault?: unknown;
    $metadata?: { httpStatusCode?: unknown };
  };
  // The SDK wraps a socket error of another realm (a vm context, a test sandbox) in an Error of
  // its own whose message quotes it: the code is then read from there.
  const system =
    typeof code === 'string'
      ? code
      : typeof message === 'string'
        ? SYSTEM_CODE.exec(message)?.[1]
        : undefined;
  if (system !== undefined && UNREACHABLE.has(system)) return `KMS unreachable (${system})`;
  if (typeof name === 'string' && Object.hasOwn(KMS_ERRORS, name))
    return `${name} (${KMS_ERRORS[name]})`;
  const status = $metadata?.httpStatusCode;
  // A service exception the SDK knows by name, which this table does not list.
  if (
    ($fault === 'client' || $fault === 'server') &&
    typeof name === 'string' &&
    ERROR_NAME.test(name)
  )
    return typeof status === 'number' ? `${name} (HTTP ${status})` : name;
  // An answer the SDK could not read as KMS's (a proxy's HTML page, say).
  if (typeof status === 'number') return `the endpoint answered HTTP ${status}, not a KMS answer`;
  return typeof name === 'string' && ERROR_NAME.test(name) && name !== 'Error'
    ? name
    : 'an unexpected error';
}
