// Run in a child process with hide-opentelemetry.cjs preloaded: a flow of two rounds and an event
// subscriber, with @opentelemetry/api unresolvable. Prints one JSON line of what it saw.
import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import {
  McpContext,
  McpFlowEvents,
  McpInputRequest,
  McpInputRequiredResult,
  McpMayRequestInput,
  McpModule,
  McpRequestStateMode,
  McpTool,
  type McpFlowEvent,
} from '../../../src/index';
import { askOnce } from '../../utils/input-asks';

@Injectable()
class Tools {
  @McpTool({
    name: 'two_rounds',
    description: 'Asks once, then answers its flow id',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  run(@McpContext() ctx: McpContext): McpInputRequiredResult | string {
    if (ctx.requestState.framework()) return `flow ${ctx.flowId}`;
    return askOnce(
      'go',
      McpInputRequest.elicitForm({
        message: 'Go?',
        requestedSchema: { type: 'object', properties: {} },
      }),
    );
  }
}

@Module({ imports: [McpModule.forRoot({ allowEphemeralKey: true })], providers: [Tools] })
class App {}

async function main(): Promise<void> {
  const app = await NestFactory.create(App, { logger: false });
  const events: McpFlowEvent[] = [];
  app.get(McpFlowEvents).events$.subscribe((event) => events.push(event));
  await app.listen(0, '127.0.0.1');
  const { port } = (app.getHttpServer() as { address(): AddressInfo }).address();
  const call = async (id: number, extra: Record<string, unknown>) => {
    const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'two_rounds',
        traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: {
          name: 'two_rounds',
          ...extra,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
          },
        },
      }),
    });
    return (await response.json()) as { result?: Record<string, unknown> };
  };
  const first = await call(1, {});
  const second = await call(2, {
    requestState: first.result?.requestState,
    inputResponses: { go: { action: 'accept', content: {} } },
  });
  await app.close();
  const loaded = Object.keys(require.cache).filter((path) => path.includes('@opentelemetry'));
  process.stdout.write(
    `${JSON.stringify({
      first: first.result?.resultType,
      second: (second.result?.content as { text: string }[] | undefined)?.[0]?.text,
      header: String(first.result?.requestState).split('.')[0],
      events: events.map((event) =>
        event.kind === 'round' ? [event.round, event.outcome] : event.kind,
      ),
      loaded,
    })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
