import type { Prompt, Resource, Tool } from '@modelcontextprotocol/server';
import type { ResourceTemplateListing } from './operation-entry.interface';

/** One page of a list method's answer. @internal */
export interface ListingPage<T> {
  /** The entries of the page, in listing order. */
  readonly items: readonly T[];
  /** Where the next page starts; absent on the last page. */
  readonly nextCursor: string | undefined;
  /**
   * The result's members as JSON text (`"tools":[…],"nextCursor":"…"`, no braces): what
   * `JSON.stringify` writes for them, serialized once for the fast path.
   */
  readonly membersJson: string;
}

/**
 * A list method's result from one page: the entries under `member`, and `nextCursor` when there is
 * more. A fresh object each time, since the SDK adds to the result it is given.
 * @internal
 */
export function listResultOf<K extends string, T>(
  member: K,
  page: ListingPage<T>,
): { [key in K]: T[] } & { nextCursor?: string } {
  const result = { [member]: page.items } as { [key in K]: T[] } & { nextCursor?: string };
  if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
  return result;
}

/** What each of the four lists holds, by the member its list method's result names it under. @internal */
export interface ListedItems {
  readonly tools: Tool;
  readonly prompts: Prompt;
  readonly resources: Resource;
  readonly resourceTemplates: ResourceTemplateListing;
}

/** One of the four lists: `tools`, `prompts`, `resources` or `resourceTemplates`. @internal */
export type ListKind = keyof ListedItems;

/** The four list methods, each with the list it answers from. @internal */
export const LIST_METHODS = [
  ['tools/list', 'tools'],
  ['prompts/list', 'prompts'],
  ['resources/list', 'resources'],
  ['resources/templates/list', 'resourceTemplates'],
] as const satisfies readonly (readonly [string, ListKind])[];
