// The user app of the user-app test (scripts/user-app-test.mjs): a Nest app as `nest new` makes it
// (CommonJS on Nest 11, ESM on Nest 12), with the globals real apps have — a passport bearer-JWT
// guard, app.use() middleware, ClassSerializerInterceptor, a catch-all exception filter and
// ValidationPipe — and nestjs-mcp installed from the packed tarball. `node dist/main.js
// express|fastify` listens on PORT (0: a free port) on loopback and prints its MCP endpoint.
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { AddressInfo } from 'node:net';
import { AppModule } from './app.module.js';
import { requestId } from './common/request-id.middleware.js';

async function bootstrap() {
  const adapter = process.argv[2] === 'fastify' ? new FastifyAdapter() : new ExpressAdapter();
  const app = await NestFactory.create(AppModule, adapter);
  app.use(requestId);
  app.enableShutdownHooks();
  await app.listen(process.env.PORT ?? 3000, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  console.log(`listening on http://127.0.0.1:${port}/mcp`);
}
void bootstrap();
