import { Inject, Injectable } from '@nestjs/common';
import { SKILLS_EXTENSION_ID } from '@modelcontextprotocol/server/ext/skills';
import { quoted } from '../../kit/quoted';
import { InvalidSkillError } from './invalid-skill.error';
import type { ServedSkill } from './served-skill';
import { SkillCatalog } from './skill-catalog';
import { SKILL_OPTIONS, type ResolvedSkillOptions } from './skill.options';
import { McpListedResources, McpOperationRegistry } from '../../extension-api';

/**
 * Puts a set of skills into service as one: checked together (distinct names, no URI a resource
 * operation serves, the total bounds), then the catalog and the `SKILL.md` entries of
 * `resources/list` replaced at once. A set that fails leaves what was served before.
 * @internal
 */
@Injectable()
export class SkillShelf {
  constructor(
    private readonly catalog: SkillCatalog,
    private readonly listed: McpListedResources,
    private readonly registry: McpOperationRegistry,
    @Inject(SKILL_OPTIONS) private readonly options: ResolvedSkillOptions,
  ) {}

  /** How many skills are served. */
  count(): number {
    return this.catalog.all().length;
  }

  /** Serves `skills` from now on, or throws the first rule the set breaks. */
  serve(skills: readonly ServedSkill[]): void {
    const { maxSkills, maxTotalBytes } = this.options.limits;
    if (skills.length > maxSkills)
      throw new InvalidSkillError(undefined, `more than ${maxSkills} skills (skills.maxSkills)`);
    let bytes = 0;
    const seen = new Map<string, ServedSkill>();
    for (const skill of skills) {
      const first = seen.get(skill.name);
      if (first)
        throw new InvalidSkillError(
          skill.name,
          `two sources serve a skill of this name (${quoted(first.location)} and ${quoted(skill.location)})`,
        );
      seen.set(skill.name, skill);
      if (this.registry.findResource(skill.name))
        throw new InvalidSkillError(skill.name, 'a resource operation serves this URI already');
      bytes += skill.bytes;
      if (bytes > maxTotalBytes)
        throw new InvalidSkillError(
          undefined,
          `more than ${maxTotalBytes} bytes of files (skills.maxTotalBytes)`,
        );
    }
    this.catalog.replace(skills);
    this.listed.replace(
      SKILLS_EXTENSION_ID,
      this.catalog.all().map((skill) => skill.resource),
    );
  }
}
