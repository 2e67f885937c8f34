/**
 * Bench server 3: the SDK v2 high-level `McpServer` (echo tool with a zod input schema) behind
 * `createMcpHandler` + `toNodeHandler` on plain `node:http`, one `McpServer` per request.
 */
import { createServer } from 'node:http';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { z } from 'zod';
import { BENCH_SERVER_INFO, portOf, serveBench } from './harness';

const echoInput = z.object({ text: z.string() });

function createBenchServer(): McpServer {
  const server = new McpServer(BENCH_SERVER_INFO);
  server.registerTool(
    'echo',
    { description: 'Returns its text argument', inputSchema: echoInput },
    ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}

serveBench(async () => {
  const handler = toNodeHandler(createMcpHandler(() => createBenchServer()));
  const server = createServer((req, res) => {
    if (req.url !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    void handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: portOf(server),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
});
