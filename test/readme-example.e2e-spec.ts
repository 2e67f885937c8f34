import { ValidationPipe } from '@nestjs/common';
import { APP_PIPE } from '@nestjs/core';
import type { Client } from '@modelcontextprotocol/client';
import { McpModule } from '../src/index';
import { FileStore, FileTools } from './fixtures/readme-example';
import { ADAPTERS, startTestServer, type TestServer } from './utils/bootstrap';
import { connectClient } from './utils/mcp';

type ElicitAnswer = {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
};

describe.each(ADAPTERS)('the README example over %s', (adapter) => {
  let server: TestServer;
  const clients: Client[] = [];

  beforeAll(async () => {
    server = await startTestServer(adapter, {
      imports: [McpModule.forRoot({ serverInfo: { name: 'files', version: '1.0.0' } })],
      providers: [
        FileStore,
        FileTools,
        { provide: APP_PIPE, useValue: new ValidationPipe({ transform: true, whitelist: true }) },
      ],
    });
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await server?.close();
  });

  /** An official client whose user answers every form with `answer`, recording the messages. */
  async function userWho(answer: ElicitAnswer): Promise<{ client: Client; asked: string[] }> {
    const asked: string[] = [];
    const client = await connectClient(
      server.url,
      {},
      {
        capabilities: { elicitation: { form: {} } },
        setup: (c) =>
          c.setRequestHandler('elicitation/create', (request) => {
            asked.push((request.params as { message: string }).message);
            return answer;
          }),
      },
    );
    clients.push(client);
    return { client, asked };
  }

  it('asks, then deletes when the user confirms', async () => {
    const { client, asked } = await userWho({ action: 'accept', content: { confirm: true } });
    const result = await client.callTool({ name: 'deleteFile', arguments: { path: 'a.txt' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Deleted a.txt' }]);
    expect(asked).toEqual(['Delete a.txt?']);
    expect(server.app.get(FileStore).removed).toContain('a.txt');
  });

  it.each<[string, ElicitAnswer]>([
    ['declines', { action: 'decline' }],
    ['cancels', { action: 'cancel' }],
    ['answers no', { action: 'accept', content: { confirm: false } }],
  ])('keeps the file when the user %s', async (_, answer) => {
    const { client } = await userWho(answer);
    const result = await client.callTool({ name: 'deleteFile', arguments: { path: 'b.txt' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Kept the file' }]);
    expect(server.app.get(FileStore).removed).not.toContain('b.txt');
  });

  it('advertises the input schema generated from DeleteFileDto', async () => {
    const { client } = await userWho({ action: 'cancel' });
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'deleteFile')?.inputSchema).toMatchObject({
      type: 'object',
      properties: { path: { type: 'string', maxLength: 255 } },
      required: ['path'],
    });
  });
});
