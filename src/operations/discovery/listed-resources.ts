import { Injectable } from '@nestjs/common';
import type { Resource } from '@modelcontextprotocol/server';
import type { RunnableOperation } from '../../pipeline/operation-runner';
import type { ListedOperation } from './paged-listing';
import { noStepsProfile } from '../../pipeline/no-steps-profile';

/**
 * A `resources/list` entry an extension contributes: made by {@link unguardedResource} (every
 * caller sees it), or inside the module for an entry guards decide (a skill's `SKILL.md`).
 * @publicApi
 */
export interface McpListedResource {
  /** Its URI: the key of the entry in the list. */
  readonly name: string;
  /** The entry `resources/list` sends. */
  readonly listing: Resource;
}

/**
 * A contributed entry as the module holds it: the entry sent, and what decides who sees it — the
 * guards and profile of what serves it, run per caller exactly as an operation's are. Its
 * `handler` is never run by a list.
 * @internal
 */
export type ContributedResource = ListedOperation<Resource> & RunnableOperation;

function isContributed(entry: McpListedResource): entry is ContributedResource {
  const { profile, handler } = entry as Partial<ContributedResource>;
  return typeof profile === 'object' && profile !== null && typeof handler === 'function';
}

/**
 * The seam where an extension adds entries to `resources/list`, after the resource operations:
 * they are paged, cached and filtered per caller with them. Each contributor replaces its whole
 * set at once.
 *
 * @example
 * ```ts
 * this.listed.replace('com.example/notes', notes.map((note) =>
 *   unguardedResource({ uri: `note://${note.id}`, name: note.title })));
 * ```
 * @publicApi
 */
@Injectable()
export class McpListedResources {
  private readonly byContributor = new Map<string, readonly ContributedResource[]>();
  private changes = 0;

  /**
   * Changes whenever a contributor replaces its entries: what cached listings are checked against.
   * @internal
   */
  get generation(): number {
    return this.changes;
  }

  /**
   * Sets `contributor`'s entries (an extension's id), replacing what it contributed before. An
   * entry not made by {@link unguardedResource} (or inside the module) is refused: nothing would
   * decide who sees it.
   */
  replace(contributor: string, entries: readonly McpListedResource[]): void {
    const checked = entries.map((entry) => {
      if (!isContributed(entry))
        throw new Error(
          `The resources/list entry "${entry.name}" of "${contributor}" was not made by unguardedResource()`,
        );
      return entry;
    });
    this.byContributor.set(contributor, checked);
    this.changes++;
  }

  /** Every contributed entry, contributors in the order they first contributed. @internal */
  all(): ContributedResource[] {
    return [...this.byContributor.values()].flat();
  }
}

/** A resource entry that runs no step of its own: no guards, no state, no arguments. */
const UNGUARDED_PROFILE: ContributedResource['profile'] = Object.freeze(noStepsProfile('resource'));

const NEVER_RUN = (): Promise<never> =>
  Promise.reject(new Error('A contributed resource entry has no method to run'));

/**
 * A `resources/list` entry every caller sees (no guard decides): what an extension whose entries
 * are not per caller contributes through {@link McpListedResources}.
 * @publicApi
 */
export function unguardedResource(listing: Resource): McpListedResource {
  const entry: ContributedResource = {
    name: listing.uri,
    listing,
    profile: UNGUARDED_PROFILE,
    handler: NEVER_RUN,
  };
  return entry;
}
