/** What registering an operation needs to know of the module's options. @internal */
export interface DiscoveryOptions {
  /** Whether arguments are validated against what each operation advertises. */
  readonly validateArguments: boolean;
  /** Whether an operation whose arguments cannot be validated fails startup (else a warning). */
  readonly failOnValidationGap: boolean;
  /** Whether framework-protected operations that do not say otherwise are single-use. */
  readonly singleUseByDefault: boolean;
  /** Entries per page of `tools/list`, `prompts/list`, `resources/list` and templates. */
  readonly listPageSize: number;
  /** `caller`: lists show what the caller's guards and scopes let it call; `public`: everything. */
  readonly listVisibility: 'caller' | 'public';
}

/** Injection token of the {@link DiscoveryOptions}. @internal */
export const DISCOVERY_OPTIONS = Symbol('DiscoveryOptions');
