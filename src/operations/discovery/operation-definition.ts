import { canonicalJson } from '../../kit/canonical-json';
import { sha256Base64Url } from '../../kit/sha256';
import type { McpOperationKind } from '../../input/mcp-operation-kind';
import type { OperationCallProfile } from '../../pipeline/operation-call';
import type { ToolTaskProfile } from './tool-task-profile';

/** What an operation's handler depends on, as the digest reads it. @internal */
export interface OperationContract {
  readonly kind: McpOperationKind;
  /** The tool or prompt name, or the resource's URI or URI template. */
  readonly key: string;
  /** What the arguments must be: the advertised input schema, or a prompt's declared arguments. */
  readonly input: unknown;
  /** A tool's output schema. */
  readonly output: unknown;
  readonly profile: Omit<OperationCallProfile, 'definition'>;
  readonly task: ToolTaskProfile | undefined;
}

/**
 * The digest of an operation's definition: its kind and key, its input (and output) schema, its
 * input declarations, state mode, single use, replay and task support — what a flow started under
 * it relies on — and never its code, description, title, annotations or scopes (scopes are checked
 * on every round anyway). Computed once per definition, at startup or registration; sealed state
 * and task records bind it, so a flow continued after the definition changed (a deploy, a run-time
 * re-registration) is refused before the handler runs, and one continued under the same definition
 * carries on.
 * @internal
 */
export function operationDefinitionDigest(contract: OperationContract): string {
  const { profile } = contract;
  return sha256Base64Url(
    canonicalJson({
      kind: contract.kind,
      key: contract.key,
      input: asJson(contract.input),
      output: asJson(contract.output),
      declarations: profile.declarations.map(({ type, requirement }) => [type, requirement]),
      stateMode: profile.stateMode,
      singleUse: profile.singleUse,
      replay: profile.replay,
      task: contract.task ? [contract.task.support, contract.task.creation] : null,
    }),
  );
}

/** A schema as the wire carries it (what `JSON.stringify` keeps of it). */
function asJson(value: unknown): unknown {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as unknown);
}
