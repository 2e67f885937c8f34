import { Injectable } from '@nestjs/common';
import type { Resource } from '@modelcontextprotocol/server';
import type { RunnableOperation } from '../../pipeline/operation-runner';
import type { ListedOperation } from './paged-listing';
import { McpRequestStateMode } from '../../input/mcp-request-state-mode.enum';

/**
 * A `resources/list` entry an extension contributes (a skill's `SKILL.md`): its URI as the key,
 * the entry sent, and what decides who sees it — the guards and profile of what serves it, run
 * per caller exactly as an operation's are. Its `handler` is never run by a list.
 * @internal
 */
export type ContributedResource = ListedOperation<Resource> & RunnableOperation;

/**
 * The seam where an extension adds entries to `resources/list`, after the resource operations:
 * they are paged, cached and filtered per caller with them (`McpListings`,
 * `McpOperationVisibility.page`). Each contributor replaces its whole set at once.
 * @internal
 */
@Injectable()
export class McpListedResources {
  private readonly byContributor = new Map<string, readonly ContributedResource[]>();
  private changes = 0;

  /** Changes whenever a contributor replaces its entries: what cached listings are checked against. */
  get generation(): number {
    return this.changes;
  }

  /** Sets `contributor`'s entries (an extension's id), replacing what it contributed before. */
  replace(contributor: string, entries: readonly ContributedResource[]): void {
    this.byContributor.set(contributor, entries);
    this.changes++;
  }

  /** Every contributed entry, contributors in the order they first contributed. */
  all(): ContributedResource[] {
    return [...this.byContributor.values()].flat();
  }
}

/** A resource entry that runs no step of its own: no guards, no state, no arguments. */
const UNGUARDED_PROFILE: ContributedResource['profile'] = Object.freeze({
  kind: 'resource',
  declarations: [],
  stateMode: McpRequestStateMode.NONE,
  singleUse: false,
  replay: false,
  scopes: [],
  public: false,
  argumentsValidator: undefined,
});

const NEVER_RUN = (): Promise<never> =>
  Promise.reject(new Error('A contributed resource entry has no method to run'));

/**
 * A `resources/list` entry every caller sees (no guard decides): what an extension whose entries
 * are not per caller contributes.
 * @internal
 */
export function unguardedResource(listing: Resource): ContributedResource {
  return { name: listing.uri, listing, profile: UNGUARDED_PROFILE, handler: NEVER_RUN };
}
