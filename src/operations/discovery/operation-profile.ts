import type { Type } from '@nestjs/common';
import type { McpOperationMetadata } from '../decorators/mcp-operation-options.interface';
import { InvalidOperationDefinitionError } from '../../kit/errors/invalid-operation-definition.error';
import {
  McpInputDeclaration,
  type McpInputDeclarationSpec,
} from '../../input/mcp-input-declaration';
import { McpRequestStateMode } from '../../input/mcp-request-state-mode.enum';
import type { OperationCallProfile } from '../../pipeline/operation-call';
import { createArgumentsValidator } from '../../pipeline/validation/arguments-validator.factory';
import type { DiscoveryOptions } from './discovery.options';
import { ConceptSecretFieldPolicy } from '../../input/secret-field.policy';

const SECRET_FIELDS = new ConceptSecretFieldPolicy();

/**
 * The argument fields `audit.arguments` lets an audit trail record in clear, checked: top-level
 * names, none of them a secret as the secret-field policy names one (a password, PIN, token, key).
 */
function auditArgumentsOf(where: string, audit: unknown): readonly string[] {
  if (audit === undefined) return [];
  const fields = (audit as { arguments?: unknown } | null)?.arguments;
  if (
    audit === null ||
    typeof audit !== 'object' ||
    (fields !== undefined &&
      (!Array.isArray(fields) || fields.some((field) => typeof field !== 'string' || field === '')))
  )
    throw new InvalidOperationDefinitionError(
      where,
      'audit must be { arguments?: string[] } (top-level argument names)',
    );
  for (const name of (fields ?? []) as string[]) {
    const concept = SECRET_FIELDS.secretConcept({ name });
    if (concept !== undefined)
      throw new InvalidOperationDefinitionError(
        where,
        `audit.arguments names "${name}", a secret (${concept}): secrets are never recorded`,
      );
  }
  return Object.freeze([...new Set((fields ?? []) as string[])]);
}

function replayOf(where: string, replay: unknown): boolean {
  if (replay !== undefined && typeof replay !== 'boolean')
    throw new InvalidOperationDefinitionError(where, 'replay must be a boolean');
  return replay === true;
}

/** The OAuth scope-token grammar (RFC 6749 §3.3). */
const SCOPE_TOKEN = /^[\u0021\u0023-\u005B\u005D-\u007E]+$/;

/** `scopes` as an operation (or a skill) declares them, checked; `[]` when none. @internal */
export function scopesOf(where: string, scopes: unknown): readonly string[] {
  if (scopes === undefined) return [];
  if (
    !Array.isArray(scopes) ||
    scopes.some((scope) => typeof scope !== 'string' || !SCOPE_TOKEN.test(scope))
  )
    throw new InvalidOperationDefinitionError(
      where,
      'scopes must be an array of OAuth scope tokens (printable ASCII, no spaces, quotes or backslashes)',
    );
  return Object.freeze([...new Set(scopes as string[])]);
}

function publicOf(where: string, value: unknown, scopes: unknown): boolean {
  if (value !== undefined && typeof value !== 'boolean')
    throw new InvalidOperationDefinitionError(where, 'public must be a boolean');
  if (value === true && Array.isArray(scopes) && scopes.length > 0)
    throw new InvalidOperationDefinitionError(
      where,
      'a public operation cannot declare scopes (a caller without a token holds none)',
    );
  return value === true;
}

/**
 * What an operation declares that the module's steps need, checked at startup: its input
 * declarations (decorators and options merged), its request-state mode, single use, replay, and
 * the validator of its arguments. A contradictory declaration fails startup naming the method.
 * @internal
 */
export function operationProfile(
  where: string,
  metadata: McpOperationMetadata,
  decoratorDeclarations: readonly McpInputDeclarationSpec[],
  argsType: Type<unknown> | undefined,
  options: DiscoveryOptions,
): OperationCallProfile {
  const replay = replayOf(where, metadata.options.replay);
  const stateMode = stateModeOf(where, metadata.options.requestState, replay);
  const declarations = declarationsOf(
    where,
    metadata.options.mayRequestInput ?? [],
    decoratorDeclarations,
  );
  if (replay && declarations.length === 0) {
    throw new InvalidOperationDefinitionError(
      where,
      'replay needs at least one @McpMayRequestInput declaration (what ctx.elicit(), ctx.createMessage() or ctx.listRoots() may ask)',
    );
  }
  return {
    kind: metadata.kind,
    declarations,
    stateMode,
    singleUse: singleUseOf(
      where,
      metadata.options.singleUse,
      stateMode,
      options.singleUseByDefault,
    ),
    replay,
    scopes: scopesOf(where, metadata.options.scopes),
    public: publicOf(where, metadata.options.public, metadata.options.scopes),
    auditArguments: auditArgumentsOf(where, metadata.options.audit),
    argumentsValidator: options.validateArguments
      ? createArgumentsValidator(
          {
            kind: metadata.kind,
            argsType,
            input: 'input' in metadata.options ? metadata.options.input : undefined,
            inputSchema:
              'inputSchema' in metadata.options ? metadata.options.inputSchema : undefined,
          },
          where,
        )
      : undefined,
  };
}

function declarationsOf(
  where: string,
  fromOptions: readonly McpInputDeclarationSpec[],
  fromDecorators: readonly McpInputDeclarationSpec[],
): McpInputDeclaration[] {
  const byType = new Map<string, McpInputDeclaration>();
  for (const spec of [...fromOptions, ...fromDecorators]) {
    const declaration = McpInputDeclaration.fromSpec(spec, where);
    const existing = byType.get(declaration.type);
    if (existing && existing.requirement !== declaration.requirement) {
      throw new InvalidOperationDefinitionError(
        where,
        `"${declaration.type}" is declared both required and conditional`,
      );
    }
    byType.set(declaration.type, declaration);
  }
  return [...byType.values()];
}

/** The declared mode; replay keeps its ledger in framework state, so it implies that mode. */
function stateModeOf(
  where: string,
  mode: McpRequestStateMode | undefined,
  replay: boolean,
): McpRequestStateMode {
  if (mode === undefined)
    return replay ? McpRequestStateMode.FRAMEWORK_PROTECTED : McpRequestStateMode.NONE;
  if (!Object.values(McpRequestStateMode).includes(mode)) {
    throw new InvalidOperationDefinitionError(where, `unknown requestState mode "${String(mode)}"`);
  }
  if (replay && mode !== McpRequestStateMode.FRAMEWORK_PROTECTED) {
    throw new InvalidOperationDefinitionError(
      where,
      `replay keeps its answers in framework-protected state: requestState must be FRAMEWORK_PROTECTED or omitted, not "${mode}"`,
    );
  }
  return mode;
}

/** Whether each incoming state is accepted once: the option, else the module default for framework state. */
function singleUseOf(
  where: string,
  singleUse: boolean | undefined,
  mode: McpRequestStateMode,
  byDefault: boolean,
): boolean {
  if (singleUse !== undefined && typeof singleUse !== 'boolean') {
    throw new InvalidOperationDefinitionError(where, 'singleUse must be a boolean');
  }
  if (mode !== McpRequestStateMode.FRAMEWORK_PROTECTED) {
    if (singleUse === true) {
      throw new InvalidOperationDefinitionError(
        where,
        `singleUse needs requestState FRAMEWORK_PROTECTED, not "${mode}"`,
      );
    }
    return false;
  }
  return singleUse ?? byDefault;
}
