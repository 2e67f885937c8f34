import { ConceptSecretFieldPolicy, type SecretFieldPolicy } from './secret-field.policy';

/** The safety policy input requests are checked against when they are built. */
export interface InputRequestPolicy {
  secrets: SecretFieldPolicy;
  /** Allows `http://localhost` URL elicitations. */
  development: boolean;
}

let current: InputRequestPolicy = {
  secrets: new ConceptSecretFieldPolicy(),
  development: process.env.NODE_ENV === 'development',
};

/**
 * The process-wide policy. Input requests are built in handler code without DI, so `McpModule`
 * installs its configured policy here at startup.
 */
export const inputRequestPolicy = {
  get(): InputRequestPolicy {
    return current;
  },
  /** @internal */
  set(policy: InputRequestPolicy): void {
    current = policy;
  },
};
