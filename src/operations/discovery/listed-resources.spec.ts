import { McpListedResources, unguardedResource } from './listed-resources';

describe('McpListedResources', () => {
  it('takes entries made by unguardedResource, replacing what the contributor gave before', () => {
    const listed = new McpListedResources();
    listed.replace('com.example/notes', [unguardedResource({ uri: 'note://1', name: 'Note 1' })]);
    listed.replace('com.example/notes', [unguardedResource({ uri: 'note://2', name: 'Note 2' })]);
    expect(listed.all().map((entry) => entry.listing.uri)).toEqual(['note://2']);
  });

  it('refuses an entry it was handed as a plain object: nothing would decide who sees it', () => {
    const listed = new McpListedResources();
    listed.replace('com.example/notes', [unguardedResource({ uri: 'note://1', name: 'Note 1' })]);
    const plain = { name: 'note://2', listing: { uri: 'note://2', name: 'Note 2' } };
    expect(() => listed.replace('com.example/notes', [plain])).toThrow(
      'The resources/list entry "note://2" of "com.example/notes" was not made by unguardedResource()',
    );
    expect(listed.all().map((entry) => entry.listing.uri)).toEqual(['note://1']);
  });
});
