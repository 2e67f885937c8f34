import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { generatedOperationsApp, generatedToolName } from './generated-operations.fixtures';
import {
  ADAPTERS,
  startTestServer,
  type AdapterName,
  type TestServer,
} from '../../utils/bootstrap';
import { connectClient, rpcBody, rpcHeaders } from '../../utils/mcp';
import { httpPost } from '../../utils/raw-http';

const TOOLS = 250;
const COUNTS = { tools: TOOLS, prompts: 120, resources: 101, templates: 30 };

const names = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, index) => `${prefix}_${String(index).padStart(5, '0')}`);

/** One raw `tools/list` page: what the client gets, byte for byte. */
async function rawPage(server: TestServer, cursor?: string) {
  const params = cursor === undefined ? {} : { cursor };
  const answer = await httpPost(
    server.url,
    rpcHeaders('tools/list'),
    rpcBody('tools/list', params, 7),
  );
  return {
    text: answer.text,
    json: JSON.parse(answer.text) as {
      result?: { tools: { name: string }[]; nextCursor?: string };
      error?: { code: number; message: string };
    },
  };
}

describe.each(ADAPTERS)('paginated lists over %s', (adapter: AdapterName) => {
  let server: TestServer;
  let sdkPath: TestServer;
  let small: TestServer;

  beforeAll(async () => {
    server = await startTestServer(adapter, { imports: [generatedOperationsApp(COUNTS)] });
    sdkPath = await startTestServer(adapter, {
      imports: [generatedOperationsApp(COUNTS, { http: { fastPath: false } })],
    });
    small = await startTestServer(adapter, {
      imports: [generatedOperationsApp({ tools: 5 }, { lists: { pageSize: 2 } })],
    });
  });

  afterAll(async () => {
    await server?.close();
    await sdkPath?.close();
    await small?.close();
  });

  it('the official client, following nextCursor, sees every tool once, in registration order', async () => {
    for (const target of [server, sdkPath]) {
      const client = await connectClient(target.url);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual(names('tool', TOOLS));
        const { prompts } = await client.listPrompts();
        expect(prompts.map((prompt) => prompt.name)).toEqual(names('prompt', 120));
        const { resources } = await client.listResources();
        expect(resources.map((resource) => resource.name)).toEqual(names('resource', 101));
        const { resourceTemplates } = await client.listResourceTemplates();
        expect(resourceTemplates.map((template) => template.name)).toEqual(names('template', 30));
      } finally {
        await client.close();
      }
    }
  });

  it('the v1 SDK client walks the pages by hand and sees the same tools', async () => {
    const client = new V1Client({ name: 'v1', version: '1.0.0' });
    await client.connect(new V1Transport(server.url));
    try {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor });
        seen.push(...page.tools.map((tool) => tool.name));
        cursor = page.nextCursor;
        pages++;
      } while (cursor !== undefined);
      expect(pages).toBe(3);
      expect(seen).toEqual(names('tool', TOOLS));
    } finally {
      await client.close();
    }
  });

  it('pages hold the page size (100 by default) and the last page has no nextCursor', async () => {
    const first = await rawPage(server);
    expect(first.json.result?.tools).toHaveLength(100);
    const second = await rawPage(server, first.json.result?.nextCursor);
    expect(second.json.result?.tools[0].name).toBe(generatedToolName(100));
    const third = await rawPage(server, second.json.result?.nextCursor);
    expect(third.json.result?.tools).toHaveLength(50);
    expect(third.json.result).not.toHaveProperty('nextCursor');
  });

  it('the fast path and the SDK path answer every page with the same bytes', async () => {
    let cursor: string | undefined;
    do {
      const [fast, sdk] = await Promise.all([rawPage(server, cursor), rawPage(sdkPath, cursor)]);
      expect(fast.text).toBe(sdk.text);
      cursor = fast.json.result?.nextCursor;
    } while (cursor !== undefined);
  });

  it('lists.pageSize sets the page size', async () => {
    const client = await connectClient(small.url);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(names('tool', 5));
      const first = await client.listTools({ cursor: undefined }, { cacheMode: 'bypass' });
      expect(first.tools).toHaveLength(5);
    } finally {
      await client.close();
    }
    expect((await rawPage(small)).json.result?.tools).toHaveLength(2);
  });

  it.each([
    ['not base64url', '***'],
    ['another list', Buffer.from('prompts:prompt_00000').toString('base64url')],
    ['an entry this server does not have', Buffer.from('tools:tool_99999').toString('base64url')],
    ['empty', ''],
    ['far too long', 'A'.repeat(10_000)],
  ])('a cursor that is %s is refused with -32602 Invalid cursor', async (_label, cursor) => {
    for (const target of [server, sdkPath]) {
      const answer = await rawPage(target, cursor);
      expect(answer.json.error).toEqual({ code: -32602, message: 'Invalid cursor' });
    }
  });
});
