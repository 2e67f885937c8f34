/**
 * Bench server 2: the SDK v2 low-level `Server` behind `createMcpHandler` + `toNodeHandler` on
 * plain `node:http` (one `Server` per request, as nestjs-mcp's McpServerFactory does).
 */
import { createServer } from 'node:http';
import { createMcpHandler, Server } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { BENCH_SERVER_INFO, portOf, serveBench } from './harness';

const ECHO_TOOL = {
  name: 'echo',
  description: 'Returns its text argument',
  inputSchema: {
    type: 'object' as const,
    properties: { text: { type: 'string' } },
    required: ['text'],
  },
};

function createBenchServer(): Server {
  const server = new Server(BENCH_SERVER_INFO, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', () => ({ tools: [ECHO_TOOL] }));
  server.setRequestHandler('tools/call', (request) => {
    const text = request.params.arguments?.text;
    if (request.params.name !== 'echo' || typeof text !== 'string') {
      return { content: [{ type: 'text', text: 'bad call' }], isError: true };
    }
    return { content: [{ type: 'text', text }] };
  });
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
