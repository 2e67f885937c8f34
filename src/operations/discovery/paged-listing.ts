import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { isPromiseLike, type MaybePromise } from '../../kit/maybe-promise';
import { decodeListCursor, encodeListCursor } from './list-cursor';
import type { ListingPage } from './listing-page';

/**
 * What a list holds of one operation: the key a cursor names and the listing entry sent.
 * @internal
 */
export interface ListedOperation<T> {
  /** The operation's name, fixed URI or URI template: unique within its list. */
  readonly name: string;
  readonly listing: T;
}

/** Which entries one caller may see; evaluated only for the entries a page scans. @internal */
export type ListingFilter<E> = (operation: E) => MaybePromise<boolean>;

/**
 * One list method's answer, in pages: the operations in registration order (the same on every
 * instance of a fleet built from the same code), each serialized once; the pages a client
 * reaches by following `nextCursor` from the first are assembled once and reused. A cursor is
 * the last key of the page before; finding where it continues is one map lookup.
 * @internal
 */
export class PagedListing<T, E extends ListedOperation<T> = ListedOperation<T>> {
  private readonly positions = new Map<string, number>();
  private readonly entryJson: (string | undefined)[];
  /** Pages that start at a multiple of the page size: the ones reached from the first. */
  private readonly pages = new Map<number, ListingPage<T>>();
  /**
   * Whether an entry has a visibility predicate (`visibleTo`): then even an unfiltered list
   * (`auth.lists: 'public'`) runs that entry's guards.
   */
  readonly restricted: boolean;

  constructor(
    /** The result member that holds the entries (`tools`, `resourceTemplates`, …). */
    private readonly member: string,
    private readonly operations: readonly E[],
    private readonly pageSize: number,
  ) {
    operations.forEach((operation, index) => this.positions.set(operation.name, index));
    this.entryJson = new Array<string | undefined>(operations.length);
    this.restricted = operations.some(
      (operation) => (operation as { restricted?: boolean }).restricted === true,
    );
  }

  /** The page `cursor` points at (the first without one); a cursor that is not ours fails -32602. */
  page(cursor: string | undefined): ListingPage<T> {
    return this.pageAt(this.startOf(cursor));
  }

  /** The page of everything from `start` on: cached when it is one the first page leads to. */
  private pageAt(start: number): ListingPage<T> {
    if (start % this.pageSize !== 0) return this.assemble(start);
    let page = this.pages.get(start);
    if (!page) {
      page = this.assemble(start);
      this.pages.set(start, page);
    }
    return page;
  }

  /**
   * The page `cursor` points at among the operations `include` admits: up to a page size of them,
   * assembled from each one's cached JSON; `include` runs only for the operations scanned. When it
   * admits every one, that is the page everybody gets, so the cached one is answered. Synchronous
   * while `include` is. A cursor can only name an entry this caller sees (each page's `nextCursor`
   * names one it showed): one naming an entry `include` refuses is as invalid as a cursor of an
   * unknown entry, so a forged cursor never tells a hidden operation from one nobody serves.
   */
  filteredPage(
    cursor: string | undefined,
    include: ListingFilter<E>,
  ): MaybePromise<ListingPage<T>> {
    const start = this.startOf(cursor);
    if (start === 0) return this.scanned(start, include);
    const named = include(this.operations[start - 1]);
    if (isPromiseLike(named))
      return (named as Promise<boolean>).then((seen) => {
        if (!seen) throw invalidCursor();
        return this.scanned(start, include);
      });
    if (!named) throw invalidCursor();
    return this.scanned(start, include);
  }

  /**
   * The page of what `include` admits from `start` on. A full page looks on for one more entry
   * `include` admits, and carries a `nextCursor` only when there is one: a caller's pages end where
   * the entries it sees end, exactly as if the hidden ones were not there.
   */
  private scanned(start: number, include: ListingFilter<E>): MaybePromise<ListingPage<T>> {
    const picked: number[] = [];
    const scanFrom = (from: number): MaybePromise<ListingPage<T>> => {
      for (let index = from; index < this.operations.length; index++) {
        const admitted = include(this.operations[index]);
        if (isPromiseLike(admitted)) {
          const at = index;
          return (admitted as Promise<boolean>).then((yes) => {
            if (!yes) return scanFrom(at + 1);
            if (picked.length === this.pageSize) return this.settled(start, picked, true);
            picked.push(at);
            return scanFrom(at + 1);
          });
        }
        if (!admitted) continue;
        if (picked.length === this.pageSize) return this.settled(start, picked, true);
        picked.push(index);
      }
      return this.settled(start, picked, false);
    };
    return scanFrom(start);
  }

  /** The page of the entries `picked` from `start` on; `more` when an entry this caller sees follows. */
  private settled(start: number, picked: readonly number[], more: boolean): ListingPage<T> {
    const whole = Math.min(this.pageSize, this.operations.length - start);
    const everyOne =
      picked.length === whole && (whole === 0 || picked[whole - 1] === start + whole - 1);
    // Every entry of the page everybody gets, and a next page exactly when it has one: that page.
    if (everyOne && more === start + this.pageSize < this.operations.length)
      return this.pageAt(start);
    return this.pageOf(picked, more ? picked[picked.length - 1] : undefined);
  }

  private startOf(cursor: string | undefined): number {
    if (cursor === undefined) return 0;
    const after = decodeListCursor(this.member, cursor);
    const position = after === undefined ? undefined : this.positions.get(after);
    if (position === undefined) throw invalidCursor();
    return position + 1;
  }

  private assemble(start: number): ListingPage<T> {
    const end = Math.min(this.operations.length, start + this.pageSize);
    const picked: number[] = [];
    for (let index = start; index < end; index++) picked.push(index);
    return this.pageOf(picked, end < this.operations.length ? end - 1 : undefined);
  }

  /** The page of the operations at `picked`; `continueAfter` is where the next page starts. */
  private pageOf(picked: readonly number[], continueAfter: number | undefined): ListingPage<T> {
    // Frozen: a cached page is handed to every later request, on both paths.
    const items = Object.freeze(picked.map((index) => this.operations[index].listing));
    const nextCursor =
      continueAfter === undefined
        ? undefined
        : encodeListCursor(this.member, this.operations[continueAfter].name);
    const entries = picked.map((index) => this.jsonOf(index)).join(',');
    const membersJson =
      `${JSON.stringify(this.member)}:[${entries}]` +
      (nextCursor === undefined ? '' : `,"nextCursor":${JSON.stringify(nextCursor)}`);
    return { items, nextCursor, membersJson };
  }

  private jsonOf(index: number): string {
    let json = this.entryJson[index];
    if (json === undefined) {
      json = JSON.stringify(this.operations[index].listing);
      this.entryJson[index] = json;
    }
    return json;
  }
}

function invalidCursor(): ProtocolError {
  return new ProtocolError(McpErrorCode.InvalidParams, 'Invalid cursor');
}
