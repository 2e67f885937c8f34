import type { AddressInfo } from 'node:net';
import type { INestApplication, ModuleMetadata, NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';

/** Both HTTP platforms: what the suites whose subject is the adapter always run on. */
export const ALL_ADAPTERS = ['express', 'fastify'] as const;
export type AdapterName = (typeof ALL_ADAPTERS)[number];

/**
 * The platforms every other suite runs on: both in the full matrix (`npm run test:all`), one in
 * the inner loop (`npm test` sets `MCP_TEST_ADAPTERS=express`): below the transport a suite's
 * subject does not depend on the platform, and the differential suites hold the two byte for byte.
 */
export const ADAPTERS: readonly AdapterName[] = adaptersFromEnv(process.env.MCP_TEST_ADAPTERS);

function adaptersFromEnv(value: string | undefined): readonly AdapterName[] {
  if (value === undefined || value === '' || value === 'all') return ALL_ADAPTERS;
  const chosen = value.split(',').map((name) => name.trim());
  const unknown = chosen.filter((name) => !(ALL_ADAPTERS as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new Error(
      `MCP_TEST_ADAPTERS: unknown adapter(s) ${unknown.join(', ')} (express, fastify, all)`,
    );
  return chosen as AdapterName[];
}

/** A Nest app listening on a free loopback port. */
export interface TestServer {
  readonly app: INestApplication;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** The MCP endpoint URL. */
  readonly url: URL;
  close(): Promise<void>;
}

function createAdapter(adapter: AdapterName): ExpressAdapter | FastifyAdapter {
  return adapter === 'fastify' ? new FastifyAdapter() : new ExpressAdapter();
}

/**
 * Compiles `metadata` into a Nest app on the given HTTP platform and listens on
 * 127.0.0.1 with an OS-assigned port. Nest's logger is silenced unless `appOptions.logger` is
 * given; `configure` (global middleware, CORS…) runs before it listens. The caller closes the
 * server.
 */
export async function startTestServer(
  adapter: AdapterName,
  metadata: ModuleMetadata,
  endpoint = '/mcp',
  appOptions: NestApplicationOptions = {},
  configure: (app: INestApplication) => void = () => undefined,
): Promise<TestServer> {
  const app = await createTestApp(adapter, metadata, appOptions);
  try {
    configure(app);
    await app.listen(0, '127.0.0.1');
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  const { port } = (app.getHttpServer() as { address(): AddressInfo }).address();
  const origin = `http://127.0.0.1:${port}`;
  return { app, origin, url: new URL(endpoint, origin), close: () => app.close() };
}

/**
 * Compiles `metadata` into an unstarted Nest app on the given HTTP platform, with logging off
 * unless `appOptions.logger` says otherwise.
 */
export async function createTestApp(
  adapter: AdapterName,
  metadata: ModuleMetadata,
  appOptions: NestApplicationOptions = {},
): Promise<INestApplication> {
  const builder = Test.createTestingModule(metadata);
  // Without this, @nestjs/testing swallows everything but errors logged while compiling.
  if (appOptions.logger && !Array.isArray(appOptions.logger)) builder.setLogger(appOptions.logger);
  const moduleRef = await builder.compile();
  return moduleRef.createNestApplication(createAdapter(adapter), { logger: false, ...appOptions });
}

/**
 * The error a Nest app fails to start with (compiling, initialising and listening), or
 * `undefined` when it starts. The app is closed either way.
 */
export async function startupError(
  adapter: AdapterName,
  metadata: ModuleMetadata,
): Promise<Error | undefined> {
  let server: TestServer | undefined;
  try {
    server = await startTestServer(adapter, metadata);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  } finally {
    await server?.close();
  }
}
