import { Injectable } from '@nestjs/common';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { z } from 'zod';
import { McpArgs, McpModule, McpPrompt, McpTool } from '../../../src/index';
import { ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import { connectClient, rawRound, rawToolCall } from '../../utils/mcp';

const Greeting = z.object({
  name: z.string().max(8),
  times: z.number().int().min(1).default(2),
});

const Order = toStandardJsonSchema(
  v.object({
    sku: v.pipe(v.string(), v.regex(/^[A-Z]{3}-\d+$/)),
    quantity: v.pipe(v.number(), v.integer(), v.minValue(1)),
  }),
);

const Topic = z.object({ topic: z.string().describe('What to write about') });

@Injectable()
class SchemaTools {
  runs = 0;

  @McpTool({ description: 'Greets, with a zod schema', input: Greeting })
  greet(@McpArgs() args: z.output<typeof Greeting>) {
    this.runs++;
    return Array.from({ length: args.times }, () => `hi ${args.name}`).join(', ');
  }

  @McpTool({ description: 'Orders, with a valibot schema', input: Order })
  order(@McpArgs() args: { sku: string; quantity: number }) {
    this.runs++;
    return `${args.quantity} × ${args.sku}`;
  }

  @McpPrompt({ description: 'Writes about a topic', input: Topic })
  essay(@McpArgs() args: { topic: string }) {
    return `Write about ${args.topic}`;
  }
}

describe.each(ADAPTERS)('Standard Schema validators as input, %s', (adapter) => {
  let server: TestServer;
  let tools: SchemaTools;

  beforeAll(async () => {
    server = await startTestServer(adapter, {
      imports: [McpModule.forRoot({})],
      providers: [SchemaTools],
    });
    tools = server.app.get(SchemaTools);
  });
  afterAll(() => server?.close());

  it('advertises the JSON Schema each library produces of its input', async () => {
    const client = await connectClient(server.url);
    try {
      const { tools: listed } = await client.listTools();
      const byName = Object.fromEntries(listed.map((tool) => [tool.name, tool.inputSchema]));
      expect(byName.greet).toEqual(
        Greeting['~standard'].jsonSchema.input({ target: 'draft-2020-12' }),
      );
      expect(byName.order).toEqual(
        Order['~standard'].jsonSchema.input({ target: 'draft-2020-12' }),
      );
      expect(byName.greet).toMatchObject({
        properties: { name: { type: 'string', maxLength: 8 } },
        required: ['name'],
      });
      const { prompts } = await client.listPrompts();
      expect(prompts.find((prompt) => prompt.name === 'essay')?.arguments).toEqual([
        { name: 'topic', required: true, description: 'What to write about' },
      ]);
    } finally {
      await client.close();
    }
  });

  it('runs the method with what the schema outputs (defaults applied)', async () => {
    const greeted = await rawToolCall(server.url, 'greet', { name: 'Ada' });
    expect(greeted.body.result?.content).toEqual([{ type: 'text', text: 'hi Ada, hi Ada' }]);
    const ordered = await rawToolCall(server.url, 'order', { sku: 'ABC-12', quantity: 3 });
    expect(ordered.body.result?.content).toEqual([{ type: 'text', text: '3 × ABC-12' }]);
  });

  it('refuses what the schema refuses with -32602 and its issues, before the method runs', async () => {
    const before = tools.runs;
    const zodRefusal = await rawToolCall(server.url, 'greet', { name: 5, times: 0 });
    expect(zodRefusal.body.error).toMatchObject({ code: -32602 });
    expect(zodRefusal.body.error?.data).toEqual({
      errors: [
        'name: Invalid input: expected string, received number',
        'times: Too small: expected number to be >=1',
      ],
    });
    const valibotRefusal = await rawToolCall(server.url, 'order', { sku: 'abc', quantity: 1.5 });
    expect(valibotRefusal.body.error).toMatchObject({ code: -32602 });
    const errors = (valibotRefusal.body.error?.data as { errors: string[] }).errors;
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/^sku: Invalid format/);
    expect(errors[1]).toMatch(/^quantity: Invalid integer/);
    const prompt = await rawRound(server.url, 'prompts/get', { name: 'essay', arguments: {} });
    expect(prompt.body.error).toMatchObject({ code: -32602 });
    expect(tools.runs).toBe(before);
  });
});
