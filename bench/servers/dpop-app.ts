/**
 * The server of `bench/dpop.bench.ts`: nestjs-mcp with the built-in resource server (JWTs of
 * BENCH_ISSUER, DPoP allowed) and one echo tool, on Express. With BENCH_REDIS_URL the module's
 * `redis` option is set, so DPoP proofs are recorded on Redis; without it, in memory.
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { McpArgs, McpModule, McpTool } from '../../src/index';
import { BENCH_SERVER_INFO, portOf, serveBench } from './harness';

@Injectable()
class EchoTool {
  @McpTool({
    name: 'echo',
    description: 'Returns its text argument',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', maxLength: 1024 } },
      required: ['text'],
    },
  })
  echo(@McpArgs('text') text: string): string {
    return text;
  }
}

serveBench(async () => {
  const issuer = process.env.BENCH_ISSUER;
  if (!issuer) throw new Error('BENCH_ISSUER is required');
  const redisUrl = process.env.BENCH_REDIS_URL || undefined;
  @Module({
    imports: [
      McpModule.forRoot({
        serverInfo: BENCH_SERVER_INFO,
        keyring: { active: 'bench', keys: { bench: randomBytes(32) } },
        auth: { resourceServer: { issuer, dpop: 'allowed' } },
        ...(redisUrl && { redis: { url: redisUrl } }),
      }),
    ],
    providers: [EchoTool],
  })
  class DpopBenchModule {}
  const started = Date.now();
  const app = await NestFactory.create(DpopBenchModule, { logger: ['error'] });
  await app.listen(0, '127.0.0.1');
  return {
    port: portOf(app.getHttpServer()),
    startupMs: Date.now() - started,
    close: () => app.close(),
  };
});
