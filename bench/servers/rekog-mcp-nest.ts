/**
 * Bench server 4: `@rekog/mcp-nest` 2.x in Nest 11 on Express. Its `McpStrategy` (a Nest
 * microservices custom transport) serves an `@McpController` echo tool through
 * `StreamableHttpTransport`, stateless, answering JSON (not SSE), with the `modern-only` protocol
 * posture so the request is served on the 2026-07-28 wire like the others.
 */
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Payload } from '@nestjs/microservices';
import { ExpressAdapter } from '@nestjs/platform-express';
import { McpController, McpStrategy, StreamableHttpTransport, Tool } from '@rekog/mcp-nest';
import { z } from 'zod';
import { BENCH_SERVER_INFO, portOf, serveBench } from './harness';

@McpController()
class EchoController {
  @Tool({
    name: 'echo',
    description: 'Returns its text argument',
    parameters: z.object({ text: z.string() }),
  })
  echo(@Payload() { text }: { text: string }) {
    return { content: [{ type: 'text', text }] };
  }
}

@Module({ controllers: [EchoController] })
class RekogModule {}

serveBench(async () => {
  const strategy = new McpStrategy({
    ...BENCH_SERVER_INFO,
    transports: [
      new StreamableHttpTransport({
        endpoint: '/mcp',
        statefulMode: false,
        enableJsonResponse: true,
        protocol: 'modern-only',
      }),
    ],
  });
  const app = await NestFactory.create(RekogModule, new ExpressAdapter(), { logger: ['error'] });
  strategy.setHttpAdapter(app.getHttpAdapter());
  app.connectMicroservice({ strategy });
  await app.startAllMicroservices();
  await app.listen(0, '127.0.0.1');
  return { port: portOf(app.getHttpServer()), close: () => app.close() };
});
