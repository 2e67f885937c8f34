import { ValidationPipe, type Type } from '@nestjs/common';
import { APP_PIPE } from '@nestjs/core';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import request from 'supertest';
import { McpModule } from '../../../src/index';
import { DOCS_COMPANIONS } from '../../fixtures/docs-companions';
import { CapturingLogger } from '../../fixtures/sample-app';
import { ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import { docsTsBlocks, writeDocsModule } from '../../utils/docs-code';
import { connectClient, rawRound, rawToolCall, resultText } from '../../utils/mcp';

const PAGE = readFileSync(join(__dirname, '../../..', 'docs', 'getting-started.md'), 'utf8');

/** The text of a `## heading` section of docs/getting-started.md. */
function section(heading: string): string {
  const start = PAGE.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/getting-started.md has no "${heading}" section`);
  const end = PAGE.indexOf('\n## ', start + 1);
  return PAGE.slice(start, end < 0 ? undefined : end);
}

/** The first `lang` block of a section. */
function block(heading: string, lang: string): string {
  const code = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(section(heading))?.[1];
  if (code === undefined) throw new Error(`"${heading}" has no ${lang} block`);
  return code;
}

/** A ts block of the page, written as a module (the package name pointing at this checkout). */
function load<T>(heading: string, name: string): T {
  const directory = join(__dirname, '../../.generated');
  mkdirSync(directory, { recursive: true });
  const file = join(directory, `${name}.ts`);
  writeFileSync(file, block(heading, 'ts').replace(/from 'nestjs-mcp'/g, "from '../../src/index'"));
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the module is written above
  return require(file) as T;
}

const { AppModule } = load<{ AppModule: Type<unknown> }>('Your first tool', 'first-tool');
const { WeatherTools } = load<{ WeatherTools: Type<unknown> }>(
  'Arguments: a DTO, a Standard Schema, or JSON Schema',
  'weather-tools',
);
/** The Operations example, beside the `OrdersService` it imports (test/fixtures/docs-companions.ts). */
const operations = writeDocsModule(
  'getting-started',
  'order-tools',
  docsTsBlocks('docs/getting-started.md', 'Operations')[0] as string,
  DOCS_COMPANIONS,
);
/* eslint-disable @typescript-eslint/no-require-imports -- the modules are written above */
const { OrderTools } = require(operations) as { OrderTools: Type<unknown> };
const { OrdersService } = require(join(dirname(operations), 'orders.service')) as {
  OrdersService: Type<unknown>;
};
/* eslint-enable @typescript-eslint/no-require-imports */

describe.each(ADAPTERS)('docs/getting-started.md over %s', (adapter) => {
  describe('your first tool', () => {
    let server: TestServer;
    const logger = new CapturingLogger();

    beforeAll(async () => {
      server = await startTestServer(adapter, { imports: [AppModule] }, '/mcp', { logger });
    });
    afterAll(() => server?.close());

    it('logs what it serves, as the page shows', () => {
      const shown = /`(Serving MCP at [^`]*)`/.exec(section('What the startup log says'))?.[1];
      expect(shown).toBe('Serving MCP at /mcp (express): 1 tool, 0 prompts, 0 resources');
      expect(logger.text()).toContain(shown!.replace('(express)', `(${adapter})`));
    });

    it('answers the curl request of the page with the JSON the page shows', async () => {
      const curl = block('Your first tool', 'bash');
      const headers = Object.fromEntries(
        [...curl.matchAll(/-H '([^:]+): ([^']*)'/g)].map((header) => [header[1], header[2]]),
      );
      const body = /-d '([\s\S]*?)'\n/.exec(curl)?.[1] as string;
      const response = await request(server.origin).post('/mcp').set(headers).send(body);
      expect(response.status).toBe(200);
      expect(JSON.parse(response.text)).toEqual(JSON.parse(block('Your first tool', 'json')));
    });

    it('advertises the schema generated from GreetDto and refuses other arguments', async () => {
      const client = await connectClient(server.url);
      try {
        const { tools } = await client.listTools();
        expect(tools.find((tool) => tool.name === 'greet')?.inputSchema).toEqual({
          type: 'object',
          properties: { name: { type: 'string', maxLength: 64 } },
          required: ['name'],
        });
      } finally {
        await client.close();
      }
      const refused = await rawToolCall(server.url, 'greet', { name: 5 });
      expect(refused.body.error).toMatchObject({ code: -32602 });
      expect((refused.body.error?.data as { errors: string[] }).errors).toContain(
        'name must be a string',
      );
    });
  });

  describe('a zod schema as input', () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer(adapter, {
        imports: [McpModule.forRoot({})],
        providers: [
          WeatherTools,
          // An app's global pipe leaves the schema's output alone (the declared type is no class).
          { provide: APP_PIPE, useValue: new ValidationPipe({ transform: true, whitelist: true }) },
        ],
      });
    });
    afterAll(() => server?.close());

    it('fills in the default the client left out', async () => {
      const answered = await rawToolCall(server.url, 'forecast', { city: 'Oslo' });
      expect(answered.body.result?.content).toEqual([
        { type: 'text', text: '3-day forecast for Oslo' },
      ]);
    });

    it("refuses what the schema refuses with the schema's issues, as the page shows", async () => {
      const refused = await rawToolCall(server.url, 'forecast', { city: '' });
      expect(refused.body.error).toMatchObject({ code: -32602 });
      const shown = /\(`(city: [^`]*)`\)/.exec(
        section('Arguments: a DTO, a Standard Schema, or JSON Schema'),
      )?.[1];
      expect(refused.body.error?.data).toEqual({ errors: [shown] });
    });
  });

  describe('the operations of one provider', () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer(adapter, {
        imports: [McpModule.forRoot({})],
        providers: [OrderTools, OrdersService],
      });
    });
    afterAll(() => server?.close());

    it('answers the tool, the prompt and the resource template with the injected service', async () => {
      const tool = await rawToolCall(server.url, 'getOrder', { id: 'A-17' });
      expect(JSON.parse(resultText(tool))).toEqual({ id: 'A-17', status: 'shipped' });
      const prompt = await rawRound(server.url, 'prompts/get', {
        name: 'draftReply',
        arguments: { orderId: 'A-17' },
      });
      expect(prompt.body.result?.messages).toEqual([
        {
          role: 'user',
          content: { type: 'text', text: 'Write a polite status update for order A-17.' },
        },
      ]);
      const read = await rawRound(server.url, 'resources/read', { uri: 'orders://A-17' });
      expect(read.body.result?.contents).toEqual([
        {
          uri: 'orders://A-17',
          mimeType: 'application/json',
          text: '{"id":"A-17","status":"shipped"}',
        },
      ]);
    });
  });
});
