import { ProtocolError } from '@modelcontextprotocol/server';
import { decodeListCursor, encodeListCursor } from './list-cursor';
import { PagedListing } from './paged-listing';

const operations = Array.from({ length: 7 }, (_, index) => ({
  name: `t${index}`,
  listing: { name: `t${index}`, n: index },
}));

function walk(listing: PagedListing<{ name: string }>): string[][] {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = listing.page(cursor);
    pages.push(page.items.map((item) => item.name));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return pages;
}

describe('PagedListing', () => {
  it('pages the operations in order, the last page without a cursor', () => {
    expect(walk(new PagedListing<{ name: string }>('tools', operations, 3))).toEqual([
      ['t0', 't1', 't2'],
      ['t3', 't4', 't5'],
      ['t6'],
    ]);
    expect(walk(new PagedListing<{ name: string }>('tools', operations, 7))).toEqual([
      operations.map((o) => o.name),
    ]);
    expect(walk(new PagedListing('tools', [], 3))).toEqual([[]]);
  });

  it('gives the members as JSON.stringify writes them, and the same page object each time', () => {
    const listing = new PagedListing<{ name: string }>('tools', operations, 3);
    const first = listing.page(undefined);
    expect(`{${first.membersJson}}`).toBe(
      JSON.stringify({ tools: first.items, nextCursor: first.nextCursor }),
    );
    expect(listing.page(undefined)).toBe(first);
    const last = listing.page(listing.page(first.nextCursor).nextCursor);
    expect(`{${last.membersJson}}`).toBe(JSON.stringify({ tools: last.items }));
  });

  it('continues after the entry a cursor names, wherever it is', () => {
    const listing = new PagedListing<{ name: string }>('tools', operations, 3);
    const page = listing.page(encodeListCursor('tools', 't1'));
    expect(page.items.map((item) => item.name)).toEqual(['t2', 't3', 't4']);
  });

  it.each([
    ['garbage', '!!'],
    ['another list', encodeListCursor('prompts', 't1')],
    ['an unknown entry', encodeListCursor('tools', 'gone')],
    ['invalid UTF-8', Buffer.from([0xff, 0xfe]).toString('base64url')],
  ])('refuses a cursor that is %s with -32602 Invalid cursor', (_label, cursor) => {
    const listing = new PagedListing<{ name: string }>('tools', operations, 3);
    expect(() => listing.page(cursor)).toThrow(
      expect.objectContaining({ code: -32602, message: 'Invalid cursor' }) as ProtocolError,
    );
  });

  it('filters per caller over the cached entries, scanning only what a page needs and the next entry it shows', async () => {
    const listing = new PagedListing<{ name: string; n: number }, (typeof operations)[number]>(
      'tools',
      operations,
      2,
    );
    const scanned: string[] = [];
    const odd = (operation: (typeof operations)[number]) => {
      scanned.push(operation.name);
      return Promise.resolve(operation.listing.n % 2 === 1);
    };
    const first = await listing.filteredPage(undefined, odd);
    expect(first.items.map((item) => item.name)).toEqual(['t1', 't3']);
    expect(scanned).toEqual(['t0', 't1', 't2', 't3', 't4', 't5']);
    expect(`{${first.membersJson}}`).toBe(
      JSON.stringify({ tools: first.items, nextCursor: first.nextCursor }),
    );
    const second = await listing.filteredPage(first.nextCursor, odd);
    expect(second.items.map((item) => item.name)).toEqual(['t5']);
    expect(second.nextCursor).toBeUndefined();
  });

  it('answers a synchronous filter at once, with the same pages as an asynchronous one', async () => {
    type Entry = (typeof operations)[number];
    const listing = new PagedListing<{ name: string; n: number }, Entry>('tools', operations, 2);
    const notThree = (operation: Entry) => operation.listing.n !== 3;
    const walkWith = async (include: (operation: Entry) => boolean | Promise<boolean>) => {
      const pages: string[][] = [];
      let cursor: string | undefined;
      do {
        const page = await listing.filteredPage(cursor, include);
        pages.push(page.items.map((item) => item.name));
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return pages;
    };
    const sync = listing.filteredPage(undefined, notThree);
    expect(sync).not.toBeInstanceOf(Promise);
    const expected = [
      ['t0', 't1'],
      ['t2', 't4'],
      ['t5', 't6'],
    ];
    expect(await walkWith(notThree)).toEqual(expected);
    expect(await walkWith((operation) => Promise.resolve(notThree(operation)))).toEqual(expected);
    // Some answers now, some later: the same pages.
    expect(
      await walkWith((operation) =>
        operation.listing.n % 2 === 0 ? notThree(operation) : Promise.resolve(notThree(operation)),
      ),
    ).toEqual(expected);
  });

  it("ends a caller's pages where the entries it sees end, as if the hidden ones did not exist", async () => {
    type Entry = (typeof operations)[number];
    // t2 and the last two hidden: the caller's entries fill its second page exactly.
    const include = (operation: Entry) => operation.listing.n < 5 && operation.listing.n !== 2;
    const listing = new PagedListing<{ name: string; n: number }, Entry>('tools', operations, 2);
    const without = new PagedListing<{ name: string; n: number }, Entry>(
      'tools',
      operations.filter(include),
      2,
    );
    for (const filter of [include, (operation: Entry) => Promise.resolve(include(operation))]) {
      const pages: string[][] = [];
      let cursor: string | undefined;
      do {
        const page = await listing.filteredPage(cursor, filter);
        expect(page).toEqual(without.page(cursor));
        pages.push(page.items.map((item) => item.name));
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      expect(pages).toEqual([
        ['t0', 't1'],
        ['t3', 't4'],
      ]);
    }
  });

  it('answers the page everybody gets when the filter shows every entry it scans', async () => {
    const listing = new PagedListing<{ name: string }>('tools', operations, 3);
    const everyone = listing.page(undefined);
    expect(listing.filteredPage(undefined, () => true)).toBe(everyone);
    expect(await listing.filteredPage(undefined, () => Promise.resolve(true))).toBe(everyone);
    const last = listing.filteredPage(listing.page(everyone.nextCursor).nextCursor, () => true);
    expect((last as { items: readonly { name: string }[] }).items.map((item) => item.name)).toEqual(
      ['t6'],
    );
  });
});

describe('list cursors', () => {
  it('round-trip any key and belong to one list', () => {
    const key = 'file:///ü/{x}';
    expect(decodeListCursor('resources', encodeListCursor('resources', key))).toBe(key);
    expect(decodeListCursor('tools', encodeListCursor('resources', key))).toBeUndefined();
    expect(decodeListCursor('tools', 'A'.repeat(9000))).toBeUndefined();
  });
});
