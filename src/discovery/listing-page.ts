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
