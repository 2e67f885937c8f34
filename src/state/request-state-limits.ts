/** Bounds of framework-protected request state. */
export interface RequestStateLimits {
  /** Longest accepted or emitted state token, in bytes. */
  maxEncodedBytes: number;
  /** Largest sealed plaintext (framework metadata plus application JSON), in bytes. */
  maxDecodedBytes: number;
  /** How long a flow may last from its first emitted state. */
  maxLifetimeMs: number;
  /** How many states one flow may emit. */
  maxRounds: number;
}
