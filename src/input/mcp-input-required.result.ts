import { frozenCopy } from '../kit/deep-freeze';
import { InvalidInputRequestError } from './invalid-input-request.error';
import type { McpJsonCompatible, McpJsonValue } from '../kit/json-value';
import type { McpInputRequest } from './mcp-input-request';

/** The state an input-required result carries to the next round. @publicApi */
export type McpCarriedState =
  { mode: 'framework'; value: McpJsonValue } | { mode: 'application'; value: string };

/**
 * Return this from a tool, prompt or resource to ask the client for input: keyed input requests,
 * request state, or both (at least one). The client performs the requests and retries the same
 * call with `inputResponses` and the echoed state. It deliberately carries no cache hints.
 *
 * @example
 * ```ts
 * return McpInputRequiredResult.builder()
 *   .inputRequest('approval', McpInputRequest.elicitForm({ message: 'Approve?', requestedSchema }))
 *   .frameworkState({ step: 1 })
 *   .build();
 * ```
 * @publicApi
 */
export class McpInputRequiredResult {
  /**
   * State for the next round, if any. Not enumerable: a serializer, a spread or `JSON.stringify`
   * in an interceptor or a cache never sees the plaintext.
   */
  declare readonly state: McpCarriedState | undefined;

  private constructor(
    /** The requests by key, in insertion order. */
    readonly inputRequests: ReadonlyMap<string, McpInputRequest>,
    state: McpCarriedState | undefined,
  ) {
    Object.defineProperty(this, 'state', { value: state, enumerable: false });
    Object.freeze(this);
  }

  /** A result asking for one input. */
  static withInputRequest(key: string, request: McpInputRequest): McpInputRequiredResult {
    return McpInputRequiredResult.builder().inputRequest(key, request).build();
  }

  /** Starts a result. */
  static builder(): McpInputRequiredResultBuilder {
    return new McpInputRequiredResultBuilder(
      (requests, state) => new McpInputRequiredResult(requests, state),
    );
  }

  /** The framework-protected JSON state, if this result carries one. */
  get frameworkState(): McpJsonValue | undefined {
    return this.state?.mode === 'framework' ? this.state.value : undefined;
  }

  /** The application-protected state string, if this result carries one. */
  get applicationState(): string | undefined {
    return this.state?.mode === 'application' ? this.state.value : undefined;
  }
}

/**
 * Builds an {@link McpInputRequiredResult}. Keys must be non-empty and unique; the two state
 * setters are mutually exclusive and the last call wins.
 *
 * @publicApi
 */
export class McpInputRequiredResultBuilder {
  private readonly requests = new Map<string, McpInputRequest>();
  private state: McpCarriedState | undefined;

  /** @internal */
  constructor(
    private readonly create: (
      requests: ReadonlyMap<string, McpInputRequest>,
      state: McpCarriedState | undefined,
    ) => McpInputRequiredResult,
  ) {}

  inputRequest(key: string, request: McpInputRequest): this {
    if (typeof key !== 'string' || key === '')
      throw new InvalidInputRequestError('Input request keys must be non-empty strings');
    if (this.requests.has(key))
      throw new InvalidInputRequestError(`Duplicate input request key "${key}"`);
    this.requests.set(key, request);
    return this;
  }

  /** JSON state the module seals; needs `requestState: FRAMEWORK_PROTECTED` on the operation. */
  frameworkState<T>(value: T & McpJsonCompatible<T>): this {
    if (value === undefined)
      throw new InvalidInputRequestError('Framework state must be a JSON value');
    this.state = { mode: 'framework', value: frozenCopy(value as McpJsonValue) };
    return this;
  }

  /** An opaque string the application protects; needs `requestState: APPLICATION_PROTECTED`. */
  applicationState(value: string): this {
    if (typeof value !== 'string' || value === '')
      throw new InvalidInputRequestError('Application state must be a non-empty string');
    this.state = { mode: 'application', value };
    return this;
  }

  build(): McpInputRequiredResult {
    if (this.requests.size === 0 && this.state === undefined) {
      throw new InvalidInputRequestError(
        'An input-required result needs at least one input request or a request state',
      );
    }
    return this.create(new Map(this.requests), this.state);
  }
}
