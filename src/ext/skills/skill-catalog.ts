import { Inject, Injectable } from '@nestjs/common';
import type { DirectoryResource, Skill } from '@modelcontextprotocol/server/ext/skills';
import type { DirectoryChild, ServedSkill, SkillFileContents } from './served-skill';
import { canonicalUri, SKILL_URI_PREFIX } from './skill-uri';
import { DISCOVERY_OPTIONS, PagedListing, type DiscoveryOptions } from '../../extension-api';

interface Catalog {
  /** By skill name (the authority of each of its URIs). */
  readonly byName: ReadonlyMap<string, ServedSkill>;
  readonly listing: PagedListing<Skill, ServedSkill>;
}

/** The skill a canonical `skill://` URI belongs to: its name is the URI's authority. */
function nameOf(canonical: string): string {
  const end = canonical.indexOf('/', SKILL_URI_PREFIX.length);
  return canonical.slice(SKILL_URI_PREFIX.length, end === -1 ? undefined : end);
}

/**
 * The skills served now, in `skills/list` order (by `SKILL.md` URI), with their files and folders
 * by URI. Replaced as a whole (at startup, and when a watched folder is read again): a request
 * sees one catalog or the other, never a mix.
 * @internal
 */
@Injectable()
export class SkillCatalog {
  private catalog: Catalog;

  constructor(@Inject(DISCOVERY_OPTIONS) private readonly options: DiscoveryOptions) {
    this.catalog = this.catalogOf([]);
  }

  /** Serves `skills` from now on; two skills of one name fail. */
  replace(skills: readonly ServedSkill[]): void {
    this.catalog = this.catalogOf(skills);
  }

  /** Every skill served, in listing order. */
  all(): ServedSkill[] {
    return [...this.catalog.byName.values()];
  }

  /** `skills/list`'s pages, each entry serialized once. */
  listing(): PagedListing<Skill, ServedSkill> {
    return this.catalog.listing;
  }

  /** The skill whose `SKILL.md` is at `uri`. */
  skill(uri: string): ServedSkill | undefined {
    const canonical = canonicalUri(uri);
    const skill = canonical === undefined ? undefined : this.owner(canonical);
    return skill?.name === canonical ? skill : undefined;
  }

  /** The file at `uri`, with its skill. */
  file(uri: string): { skill: ServedSkill; contents: SkillFileContents } | undefined {
    const canonical = canonicalUri(uri);
    const skill = canonical === undefined ? undefined : this.owner(canonical);
    const contents = canonical === undefined ? undefined : skill?.files.get(canonical);
    return skill && contents ? { skill, contents } : undefined;
  }

  /** The folder at `uri` (a trailing `/` allowed), with its skill. */
  folder(
    uri: string,
  ): { skill: ServedSkill; children: PagedListing<DirectoryResource, DirectoryChild> } | undefined {
    let canonical = canonicalUri(uri);
    if (canonical?.endsWith('/') && canonical.length > SKILL_URI_PREFIX.length + 1)
      canonical = canonical.slice(0, -1);
    const skill = canonical === undefined ? undefined : this.owner(canonical);
    const children = canonical === undefined ? undefined : skill?.folders.get(canonical);
    return skill && children ? { skill, children } : undefined;
  }

  private owner(canonical: string): ServedSkill | undefined {
    return canonical.startsWith(SKILL_URI_PREFIX)
      ? this.catalog.byName.get(nameOf(canonical))
      : undefined;
  }

  private catalogOf(skills: readonly ServedSkill[]): Catalog {
    const sorted = [...skills].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const byName = new Map<string, ServedSkill>();
    for (const skill of sorted) byName.set(skill.listing.frontmatter.name, skill);
    return {
      byName,
      listing: new PagedListing('skills', sorted, this.options.listPageSize),
    };
  }
}
