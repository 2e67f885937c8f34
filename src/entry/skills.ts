// `nestjs-mcp/skills`: the skills extension (SEP-2640) an application serves with the `skills`
// module option — the `@McpSkill()` decorator for skills its providers build, and the shape they
// return. Skills read from a folder need nothing from here. See docs/skills.md.

export {
  McpSkill,
  type McpSkillOptions,
  type McpSkillSource,
} from '../ext/skills/mcp-skill.decorator';
