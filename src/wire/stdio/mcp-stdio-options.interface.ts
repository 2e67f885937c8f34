/**
 * Who the caller of a stdio server is: the identity the process was started with (an environment
 * variable, an OS account, a token the launcher verified). It becomes `request.user` of every
 * request, so guards, `scopes` and the partition resolver read it as they read a principal a
 * passport-style guard set over HTTP: `sub` (or `id`, `userId`, `username`, `email`) names the
 * partition, `scopes` (or `scope`, `scp`) are the scopes an operation's `scopes` check, and
 * anything else (`roles`…) is there for your guards.
 *
 * @publicApi
 */
export interface McpStdioCaller {
  readonly sub?: string;
  readonly roles?: readonly string[];
  readonly scopes?: readonly string[];
  readonly [claim: string]: unknown;
}

/**
 * Options of {@link McpStdio.serve}.
 *
 * @publicApi
 */
export interface McpStdioOptions {
  /**
   * The caller, as `request.user` of every request (`switchToHttp().getRequest().user`); without
   * it requests carry no principal (the partition is `anonymous`, scoped operations answer 401).
   */
  readonly caller?: McpStdioCaller;
  /**
   * `serve` (default): a client that opens with `initialize` (the 2025-11-25 era) gets a session
   * over the pipe, with elicitation, sampling and roots asked as server-to-client requests;
   * `reject`: only the 2026-07-28 exchange is served.
   */
  readonly legacy?: 'serve' | 'reject';
  /** How long a 2025-era call waits for the client's answer to one input request. Default 300,000 ms. */
  readonly answerTimeoutMs?: number;
  /** Input rounds one 2025-era call may take before it is answered `-32012`. Default 10. */
  readonly maxInputRounds?: number;
  /**
   * How long, once stdin ends or the process gets `SIGTERM`/`SIGINT`, the calls in flight have to
   * finish before the connection closes anyway. Default: `shutdown.graceMs` (10,000 ms).
   */
  readonly graceMs?: number;
  /** Where the messages come from (default `process.stdin`). */
  readonly input?: NodeJS.ReadableStream;
  /** Where the messages go (default `process.stdout`, which nothing else may write to then). */
  readonly output?: NodeJS.WritableStream;
}
