// `nestjs-mcp/skills`: the skills extension (SEP-2640) an application serves with the `skills`
// module option — the `@McpSkill()` decorator for skills its providers build, and the shapes they
// return. Skills read from a folder need nothing from here. See docs/skills.md.

export {
  McpSkill,
  type McpSkillOptions,
  type McpSkillSource,
  type McpSkillSources,
} from '../ext/skills/mcp-skill.decorator';
export type { McpSkillsOptions } from '../ext/skills/skill.options';
export { InvalidSkillError } from '../ext/skills/invalid-skill.error';
