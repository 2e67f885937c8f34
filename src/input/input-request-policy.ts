import { operationScope } from '../pipeline/operation-scope';
import { ConceptSecretFieldPolicy, type SecretFieldPolicy } from './secret-field.policy';

/** The safety policy input requests are checked against when they are built. */
export interface InputRequestPolicy {
  secrets: SecretFieldPolicy;
  /** Allows `http://localhost` URL elicitations. */
  development: boolean;
}

let fallback: InputRequestPolicy = {
  secrets: new ConceptSecretFieldPolicy(),
  development: process.env.NODE_ENV === 'development',
};

/**
 * The policy in force where an input request is built. Requests are built in handler code without
 * DI, so the dispatcher runs each operation inside its module's configured policy; outside an
 * operation (unit tests of handlers) the default policy applies. Several apps in one process each
 * keep their own policy.
 */
export const inputRequestPolicy = {
  get(): InputRequestPolicy {
    return operationScope.current()?.policy ?? fallback;
  },
  /** Runs `work` under `policy`, outside any operation call. For tests. @internal */
  run<T>(policy: InputRequestPolicy, work: () => T): T {
    return operationScope.run({ policy, call: undefined }, work);
  },
  /** Replaces the policy used outside operations. For tests. @internal */
  set(policy: InputRequestPolicy): void {
    fallback = policy;
  },
};
