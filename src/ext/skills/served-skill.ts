import type { Resource } from '@modelcontextprotocol/server';
import type { DirectoryResource, Skill } from '@modelcontextprotocol/server/ext/skills';
import type { EncodedJsonString } from '../../kit/encoded-json';
import type { ContributedResource, PagedListing, RunnableOperation } from '../../extension-api';

/**
 * What `resources/read` of one skill file answers, built once, at load: its `text` or `blob`
 * already JSON-encoded, so an answer is never escaped again, and `bytes`, what the answer's
 * contents weigh in flight (their JSON). @internal
 */
export interface SkillFileContents {
  readonly entry:
    | { readonly uri: string; readonly mimeType: string; readonly text: EncodedJsonString }
    | { readonly uri: string; readonly mimeType: string; readonly blob: EncodedJsonString };
  readonly bytes: number;
}

/** One entry of a skill folder's `resources/directory/read`, keyed by its URI. @internal */
export interface DirectoryChild {
  readonly name: string;
  readonly listing: DirectoryResource;
}

/** Who may see a skill: what runs the guards of its source, and its profile (scopes). @internal */
export type SkillAccess = Pick<RunnableOperation, 'profile' | 'guardsHandler'>;

/**
 * One skill as served: its `skills/list` entry (the listing key is its `SKILL.md` URI), its
 * `resources/list` entry, its files and folders by URI, and the guards that decide who sees it.
 * Everything is computed once, when the skill is loaded; serving only looks up.
 * @internal
 */
export interface ServedSkill extends RunnableOperation {
  /** The `SKILL.md` URI: the key of `skills/list` pages. */
  readonly name: string;
  readonly listing: Skill;
  /** The `resources/list` entry of its `SKILL.md`. */
  readonly resource: ContributedResource & { readonly listing: Resource };
  /** Each file's `resources/read` contents, by URI. */
  readonly files: ReadonlyMap<string, SkillFileContents>;
  /** Each folder's children (the root's included), by URI. */
  readonly folders: ReadonlyMap<string, PagedListing<DirectoryResource, DirectoryChild>>;
  /** Bytes of its files together. */
  readonly bytes: number;
  /** Where it came from, for messages: its folder, or the `@McpSkill()` method. */
  readonly location: string;
}
