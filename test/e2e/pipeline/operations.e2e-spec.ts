import { McpModule } from '../../../src/index';
import { CatalogModule, LEAKY_SECRET } from '../../fixtures/catalog.fixtures';
import { InterceptorLog } from '../../fixtures/enhancers';
import { ErrorMappingModule, WEATHER } from './error-mapping.fixtures';
import { ADAPTERS, startTestServer } from '../../utils/bootstrap';
import { connectClient, rawRound, rawToolCall, resultText, rpcError } from '../../utils/mcp';
import { serverForSuite } from '../../utils/suite-server';
import { SuiteScope } from '../../utils/suite-resource';

describe.each(ADAPTERS)('MCP operations over %s', (adapter) => {
  const scope = new SuiteScope();
  const server = serverForSuite(
    () =>
      startTestServer(adapter, {
        imports: [
          McpModule.forRoot({ serverInfo: { name: 'catalog', version: '1.2.3' } }),
          CatalogModule,
        ],
      }),
    scope,
  );
  const client = scope.open(
    () => connectClient(server.url),
    (connected) => connected.close(),
  );

  describe('tools', () => {
    it('lists tools with descriptions and object input schemas', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([
        'ping',
        'add_note',
        'count_down',
        'intercepted',
        'explode',
        'out_of_stock',
      ]);
      expect(tools.find((tool) => tool.name === 'ping')).toEqual({
        name: 'ping',
        description: 'Answers pong; takes no arguments',
        inputSchema: { type: 'object', properties: {} },
      });
    });

    it('derives the input schema from the class-validator DTO', async () => {
      const { tools } = await client.listTools();
      const { inputSchema } = tools.find((tool) => tool.name === 'add_note')!;
      expect(inputSchema).toMatchObject({
        type: 'object',
        properties: {
          text: { type: 'string', minLength: 1, maxLength: 40 },
          stars: { type: 'integer', minimum: 1, maximum: 5 },
        },
        required: ['text'],
      });
    });

    it('calls a tool whose arguments are omitted', async () => {
      const result = await client.callTool({ name: 'ping' });
      expect(result.content).toEqual([{ type: 'text', text: 'pong' }]);
      expect(result.isError).toBeUndefined();
    });

    it('validates and transforms DTO arguments through the global ValidationPipe', async () => {
      const result = await client.callTool({
        name: 'add_note',
        arguments: { text: 'hi', stars: 2, extra: true },
      });
      expect(result.content).toEqual([{ type: 'text', text: 'noted: hi ** (AddNoteDto)' }]);
    });

    it('answers -32602 with the validation messages when the DTO is invalid', async () => {
      const error = await rpcError(
        client.callTool({ name: 'add_note', arguments: { text: '', stars: 9 } }),
      );
      expect(error.code).toBe(-32602);
      expect(error.data).toEqual({
        errors: expect.arrayContaining([
          'text must be longer than or equal to 1 characters',
          'stars must not be greater than 5',
        ]),
      });
    });

    it('answers -32602 naming an unknown tool', async () => {
      const error = await rpcError(client.callTool({ name: 'no_such_tool', arguments: {} }));
      expect(error.code).toBe(-32602);
      expect(error.message).toContain('no_such_tool');
    });

    it('sends progress notifications on the call stream', async () => {
      const updates: { progress: number; total?: number; message?: string }[] = [];
      const result = await client.callTool(
        { name: 'count_down' },
        { onprogress: (update) => updates.push(update) },
      );
      expect(updates).toEqual([
        { progress: 1, total: 3, message: 'step 1' },
        { progress: 2, total: 3, message: 'step 2' },
        { progress: 3, total: 3, message: 'step 3' },
      ]);
      expect(result.content).toEqual([{ type: 'text', text: 'progress enabled: true' }]);
    });

    it('answers a call a guard refuses as for an unknown tool, the tool being left out of the list', async () => {
      const error = await rpcError(client.callTool({ name: 'forbidden', arguments: {} }));
      expect(error).toMatchObject({ code: -32602, message: 'Unknown tool: forbidden' });
    });

    it('runs interceptors around the call, in the mcp context', async () => {
      const log = server.app.get(InterceptorLog);
      log.entries.length = 0;
      const result = await client.callTool({ name: 'intercepted', arguments: {} });
      expect(log.entries).toEqual([
        { contextType: 'mcp', target: 'intercepted', result: 'raw result' },
      ]);
      expect(result.content).toEqual([{ type: 'text', text: 'raw result (intercepted)' }]);
    });

    it('answers a bare -32603 for a thrown Error, leaking neither message nor stack', async () => {
      const error = await rpcError(client.callTool({ name: 'explode', arguments: {} }));
      expect(error.code).toBe(-32603);
      expect(error.message).toContain('Internal error');
      const wire = JSON.stringify({ message: error.message, data: error.data });
      expect(wire).not.toContain('hunter2');
      expect(wire).not.toContain(LEAKY_SECRET);
      expect(wire).not.toMatch(/at .+\.(ts|js):\d+/);
    });

    it('turns McpToolError into an isError result', async () => {
      const result = await client.callTool({ name: 'out_of_stock', arguments: {} });
      expect(result).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'Item 42 is out of stock' }],
      });
    });
  });

  describe('prompts', () => {
    it('lists prompts with their arguments', async () => {
      const { prompts } = await client.listPrompts();
      expect(prompts).toEqual([
        {
          name: 'greeting',
          description: 'Greets someone',
          arguments: [{ name: 'who', description: 'Who to greet', required: true }],
        },
      ]);
    });

    it('gets a prompt with arguments', async () => {
      const result = await client.getPrompt({ name: 'greeting', arguments: { who: 'Ada' } });
      expect(result.messages).toEqual([
        { role: 'user', content: { type: 'text', text: 'Say hello to Ada' } },
      ]);
    });

    it('completes a prompt argument', async () => {
      const result = await client.complete({
        ref: { type: 'ref/prompt', name: 'greeting' },
        argument: { name: 'who', value: 'A' },
      });
      expect(result.completion.values).toEqual(['Ada', 'Alan']);
    });
  });

  describe('resources', () => {
    it('lists fixed resources and templates', async () => {
      const { resources } = await client.listResources();
      expect(resources).toEqual([
        {
          uri: 'catalog://readme',
          name: 'readme',
          description: 'About the catalog',
          mimeType: 'text/plain',
        },
      ]);
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates).toEqual([
        {
          uriTemplate: 'catalog://items/{id}',
          name: 'item',
          description: 'One item',
          mimeType: 'application/json',
        },
      ]);
    });

    it('reads a fixed resource', async () => {
      const { contents } = await client.readResource({ uri: 'catalog://readme' });
      expect(contents).toEqual([
        { uri: 'catalog://readme', mimeType: 'text/plain', text: 'The catalog of things.' },
      ]);
    });

    it('reads a templated resource with its variables', async () => {
      const { contents } = await client.readResource({ uri: 'catalog://items/7' });
      expect(contents).toEqual([
        {
          uri: 'catalog://items/7',
          mimeType: 'application/json',
          text: '{"id":"7","name":"Item 7"}',
        },
      ]);
    });

    it('answers -32602 "Resource not found" with the URI for an unknown resource', async () => {
      const error = await rpcError(client.readResource({ uri: 'catalog://missing' }));
      expect(error).toMatchObject({
        code: -32602,
        message: expect.stringContaining('Resource not found'),
        data: { uri: 'catalog://missing' },
      });
    });
  });
});

describe.each(ADAPTERS)('MCP operation error mapping over %s', (adapter) => {
  const server = serverForSuite(() =>
    startTestServer(adapter, {
      imports: [McpModule.forRoot({}), ErrorMappingModule],
    }),
  );

  it('answers UnauthorizedException with HTTP 401, a Bearer challenge, -32001 "Unauthorized" and nothing of its message', async () => {
    const response = await rawToolCall(server.url, 'locked', {});
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer');
    expect(response.body.error).toEqual({ code: -32001, message: 'Unauthorized' });
    expect(response.text).not.toContain('alice@example.com');
  });

  it('turns a 404 NotFoundException in a tool into an isError result with its message', async () => {
    const response = await rawToolCall(server.url, 'find_item', {});
    expect(response.status).toBe(200);
    expect(response.body.error).toBeUndefined();
    expect(response.body.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Item 9 does not exist' }],
    });
  });

  it('answers a 404 NotFoundException in a prompt with -32602 and its message', async () => {
    const response = await rawRound(server.url, 'prompts/get', { name: 'missing_draft' });
    expect(response.status).toBe(200);
    expect(response.body.error).toEqual({ code: -32602, message: 'Draft 3 does not exist' });
  });

  it('answers a thrown non-Error value with a bare -32603 that does not carry it', async () => {
    const response = await rawToolCall(server.url, 'throw_value', {});
    expect(response.status).toBe(200);
    expect(response.body.error).toEqual({ code: -32603, message: 'Internal error' });
    expect(response.text).not.toContain('boom');
    expect(response.text).not.toContain('1234');
  });

  it('reads a resource that returns bytes as a base64 blob with its mimeType', async () => {
    const response = await rawRound(server.url, 'resources/read', { uri: 'fixtures://logo.png' });
    expect(response.status).toBe(200);
    expect(response.body.result?.contents).toEqual([
      {
        uri: 'fixtures://logo.png',
        mimeType: 'image/png',
        blob: 'iVBORwD//g==', // the bytes 89 50 4e 47 00 ff fe
      },
    ]);
  });

  it('sends a plain object from a tool with an outputSchema as structuredContent and JSON text', async () => {
    const response = await rawToolCall(server.url, 'weather', {});
    expect(response.status).toBe(200);
    const result = response.body.result!;
    expect(result.structuredContent).toEqual(WEATHER);
    expect(result.isError).toBeUndefined();
    expect(JSON.parse(resultText(response))).toEqual(WEATHER);
    const listing = await rawRound(server.url, 'tools/list', {});
    const tools = listing.body.result?.tools as { name: string; outputSchema?: unknown }[];
    expect(tools.find((tool) => tool.name === 'weather')?.outputSchema).toMatchObject({
      type: 'object',
      required: ['city', 'celsius'],
    });
  });
});
