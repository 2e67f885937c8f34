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
