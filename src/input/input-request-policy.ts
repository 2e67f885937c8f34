import { validateElicitationUrl } from './elicitation-url.policy';
import { validateFormSchema } from './form-schema.validator';
import type { McpInputRequest } from './mcp-input-request';
import type { SecretFieldPolicy } from './secret-field.policy';

/** The safety policy input requests are checked against when an operation emits them. @internal */
export interface InputRequestPolicy {
  readonly secrets: SecretFieldPolicy;
  /** Allows `http://localhost` URL elicitations. */
  readonly development: boolean;
}

/**
 * Refuses an input request the policy forbids (a form that asks for a secret, a URL that is not
 * https or carries a credential), throwing `InvalidInputRequestError`. Requests are built in
 * handler code without the module's options, so their factories check only the protocol shape and
 * the module checks the policy here, where the options are at hand.
 * @internal
 */
export function checkInputRequestPolicy(
  request: McpInputRequest,
  policy: InputRequestPolicy,
): void {
  if (request.type === 'elicitation.form')
    validateFormSchema(request.params.requestedSchema, policy.secrets);
  else if (request.type === 'elicitation.url')
    validateElicitationUrl(request.params.url as string, policy.secrets, policy.development);
}

/** Injection token of the module's {@link InputRequestPolicy}. @internal */
export const INPUT_REQUEST_POLICY = Symbol('InputRequestPolicy');
