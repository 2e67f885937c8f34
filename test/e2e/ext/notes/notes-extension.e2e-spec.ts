import { Injectable, Module } from '@nestjs/common';
import { McpModule, McpTool } from '../../../../src/index';
import { configured } from '../../../../src/entry/extension';
import type { AnyMcpExtension } from '../../../../src/options/mcp-extension';
import { MemoryNoteStore, NoteStore } from '../../../fixtures/notes-extension/note-store';
import { notesExtension } from '../../../fixtures/notes-extension/notes.extension';
import { NOTES_EXTENSION_ID } from '../../../fixtures/notes-extension/notes.installer';
import { ADAPTERS, startTestServer, startupError, type TestServer } from '../../../utils/bootstrap';
import { rawRound } from '../../../utils/mcp';

/*
 * The door, proven by a fourth extension that is not in src/: `test/fixtures/notes-extension/` is
 * one folder (its options, a store port, two methods, a list contribution and a reader) built only
 * on the package's public faces (`nestjs-mcp/extension` and `nestjs-mcp`), as a third-party
 * package would be, and an application composes it with one line. What the core gives the
 * built-in extensions it gives this one.
 */

@Injectable()
class PlainTools {
  @McpTool({ name: 'ping_tool', description: 'Answers pong' })
  ping(): string {
    return 'pong';
  }
}

function appWith(extension?: AnyMcpExtension, providers: unknown[] = []) {
  @Module({
    imports: [
      McpModule.forRoot({
        serverInfo: { name: 'notes-app', version: '1.0.0' },
        ...(extension ? { extensions: [extension] } : {}),
      }),
    ],
    providers: [PlainTools, ...(providers as [])],
  })
  class NotesApp {}
  return NotesApp;
}

describe.each(ADAPTERS)('a fourth extension through the door over %s', (adapter) => {
  describe('composed with its options', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer(adapter, {
        imports: [appWith(configured(notesExtension, { maxNotes: 2, title: 'Memo' }))],
      });
    });
    afterAll(() => server.close());

    it('declares itself with its settings, beside the core', async () => {
      const discover = await rawRound(server.url, 'server/discover', {});
      expect(discover.body.result?.capabilities).toMatchObject({
        tools: expect.any(Object),
        extensions: { [NOTES_EXTENSION_ID]: { maxNotes: 2 } },
      });
    });

    it('serves its methods, bounded by its option, and lists and reads what they made', async () => {
      expect(
        (await rawRound(server.url, 'notes/add', { text: 'first' })).body.result,
      ).toMatchObject({
        id: 1,
      });
      expect(
        (await rawRound(server.url, 'notes/add', { text: 'second' })).body.result,
      ).toMatchObject({
        id: 2,
      });
      const full = await rawRound(server.url, 'notes/add', { text: 'third' });
      expect(full.body.error).toEqual({ code: -32602, message: 'The notebook is full' });
      expect((await rawRound(server.url, 'notes/list', {})).body.result).toMatchObject({
        notes: [
          { id: 1, text: 'first' },
          { id: 2, text: 'second' },
        ],
      });
      const listed = await rawRound(server.url, 'resources/list', {});
      expect(listed.body.result?.resources).toEqual([
        { uri: 'note://1', name: 'Memo 1', mimeType: 'text/plain' },
        { uri: 'note://2', name: 'Memo 2', mimeType: 'text/plain' },
      ]);
      const read = await rawRound(server.url, 'resources/read', { uri: 'note://2' });
      expect(read.body.result?.contents).toEqual([
        { uri: 'note://2', mimeType: 'text/plain', text: 'second' },
      ]);
      // The core's own operations are untouched by it.
      const pong = await rawRound(server.url, 'tools/call', { name: 'ping_tool', arguments: {} });
      expect(pong.body.result?.content).toEqual([{ type: 'text', text: 'pong' }]);
    });
  });

  it('takes the store an application provides for its port, as the built-in ports do', async () => {
    const own = new MemoryNoteStore();
    await own.add('kept by the app');
    const server = await startTestServer(adapter, {
      imports: [appWith(configured(notesExtension, {}), [{ provide: NoteStore, useValue: own }])],
    });
    try {
      expect((await rawRound(server.url, 'notes/list', {})).body.result).toMatchObject({
        notes: [{ id: 1, text: 'kept by the app' }],
      });
    } finally {
      await server.close();
    }
  });

  it('fails startup naming a bad option of its own', async () => {
    const error = await startupError(adapter, {
      imports: [appWith(configured(notesExtension, { maxNotes: 0 }))],
    });
    expect(error?.name).toBe('InvalidModuleOptionsError');
    expect(error?.message).toContain('"notes.maxNotes"');
  });

  it('is absent from an app that does not compose it: its method is unknown', async () => {
    const server = await startTestServer(adapter, { imports: [appWith()] });
    try {
      const answer = await rawRound(server.url, 'notes/list', {});
      expect(answer.body.error?.code).toBe(-32601);
      const discover = await rawRound(server.url, 'server/discover', {});
      expect(JSON.stringify(discover.body.result)).not.toContain(NOTES_EXTENSION_ID);
    } finally {
      await server.close();
    }
  });
});
