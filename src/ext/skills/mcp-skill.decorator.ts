import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common';
import { SKILLS_EXTENSION_ID } from '@modelcontextprotocol/server/ext/skills';
import { MCP_EXTENSION_MARK_METADATA } from '../../kit/mcp.constants';
import { OPERATION_SCOPES_GUARD, type McpExtensionMark } from '../../extension-api';

/** Metadata key of an `@McpSkill()` method's options. @internal */
export const MCP_SKILL_METADATA = 'mcp:skill';

/** Options of `@McpSkill()`. @publicApi */
export interface McpSkillOptions {
  /**
   * OAuth scopes a caller's token needs to see the skills (checked after the global and class
   * guards, as an operation's `scopes` are); a caller without them finds no trace of them.
   */
  scopes?: string[];
}

/**
 * Where one skill's files come from: a folder holding its `SKILL.md` (whose name is the skill's),
 * or the files themselves, by path under the skill's folder (`SKILL.md`, `references/FORMS.md`).
 * @publicApi
 */
export type McpSkillSource =
  | { readonly directory: string }
  | {
      readonly name: string;
      readonly files: Readonly<Record<string, string | Uint8Array>>;
    };

/**
 * What an `@McpSkill()` method returns: one skill or several, at once or as a promise.
 * @publicApi
 */
export type McpSkillSources =
  McpSkillSource | readonly McpSkillSource[] | Promise<McpSkillSource | readonly McpSkillSource[]>;

const MARK: McpExtensionMark = {
  extension: SKILLS_EXTENSION_ID,
  decorator: '@McpSkill()',
  option: 'skills',
};

/**
 * Serves the skills the decorated method returns (SEP-2640): a folder, or files the application
 * builds, one skill or several. The method runs once, at startup; each skill is checked and
 * digested then, and a bad one fails startup naming it. The method's guards (`@UseGuards`, global
 * and class ones included) and `scopes` decide who sees the skills, as they decide who sees a tool:
 * a caller they refuse finds the skills in no list, and each of their URIs answers that caller as a
 * URI nobody serves. Needs the `skills` module option.
 *
 * @example
 * ```ts
 * @RequireRole('agent')
 * @McpSkill()
 * triage() {
 *   return { name: 'ticket-triage', files: { 'SKILL.md': renderTriageSkill(this.priorities) } };
 * }
 * ```
 * @publicApi
 */
export function McpSkill(
  options: McpSkillOptions = {},
): <T extends (...args: never[]) => McpSkillSources>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<T>,
) => void {
  const marks = [
    SetMetadata(MCP_EXTENSION_MARK_METADATA, MARK),
    SetMetadata(MCP_SKILL_METADATA, options),
  ];
  return applyDecorators(
    ...marks,
    ...(options.scopes === undefined ? [] : [UseGuards(OPERATION_SCOPES_GUARD)]),
  );
}
