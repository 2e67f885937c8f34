import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Logger, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { setUpTelemetry, type MetricsHandler } from './telemetry';
import { AppModule } from './app.module';

const HOST = '127.0.0.1';

async function createApp(adapter: string): Promise<INestApplication> {
  if (adapter === 'fastify')
    return NestFactory.create<NestFastifyApplication>(AppModule, new FastifyAdapter());
  if (adapter === 'express') return NestFactory.create<NestExpressApplication>(AppModule);
  throw new Error(`SAMPLE_ADAPTER must be "express" or "fastify", got "${adapter}"`);
}

/** `GET /metrics` on the app's own port, on either platform (Fastify hands the raw objects over). */
function mountMetrics(app: INestApplication, handler: MetricsHandler): void {
  type Raw = { raw?: unknown; hijack?: () => void };
  app.getHttpAdapter().get('/metrics', (request: Raw, response: Raw) => {
    // Fastify: the handler answers on the raw response, so Fastify must not answer too.
    response.hijack?.();
    handler((request.raw ?? request) as never, (response.raw ?? response) as never);
  });
}

async function bootstrap(): Promise<void> {
  // Before the app exists, so the module's first call already sees the providers.
  const metricsHandler = setUpTelemetry();
  const adapter = process.env.SAMPLE_ADAPTER ?? 'express';
  const app = await createApp(adapter);
  app.enableShutdownHooks();
  if (metricsHandler) mountMetrics(app, metricsHandler);
  await app.listen(Number(process.env.PORT ?? 3000), HOST);
  // PORT=0 picks a free port; scripts read the real one from this line.
  const { port } = app.getHttpServer().address() as AddressInfo;
  Logger.log(
    `MCP endpoint listening on http://${HOST}:${port}${process.env.MCP_ENDPOINT ?? '/mcp'} (${adapter})`,
    'Sample',
  );
}

bootstrap().catch((error: unknown) => {
  Logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error), 'Sample');
  process.exit(1);
});
