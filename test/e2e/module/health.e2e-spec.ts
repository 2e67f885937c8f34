import { Controller, Get, type Type } from '@nestjs/common';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';
import request from 'supertest';
import {
  McpHealthModule,
  McpKeyringHealthIndicator,
  McpRedisHealthIndicator,
} from '../../../src/entry/health';
import { McpModule, type McpModuleOptions } from '../../../src/index';
import { newKeyring } from '../../fixtures/sample-app';
import { ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import { startRedisServer, type RedisServerHandle } from '../../utils/redis-server';

@Controller('health')
class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly keyring: McpKeyringHealthIndicator,
    private readonly redis: McpRedisHealthIndicator,
  ) {}

  @Get('keyring')
  @HealthCheck()
  keyringCheck() {
    return this.health.check([() => this.keyring.isHealthy('keyring')]);
  }

  @Get('redis')
  @HealthCheck()
  redisCheck() {
    return this.health.check([() => this.redis.isHealthy('redis')]);
  }
}

/** `nestjs-mcp/health`: terminus indicators of the keyring and the Redis connection, for readiness probes. */
describe.each(ADAPTERS)('health indicators over %s', (adapter) => {
  let redis: RedisServerHandle;
  const servers: TestServer[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
  });

  afterAll(async () => {
    for (const server of servers) await server.close();
    await redis?.close();
  });

  async function serve(options: McpModuleOptions): Promise<TestServer> {
    const server = await startTestServer(adapter, {
      imports: [McpModule.forRoot(options), McpHealthModule],
      controllers: [HealthController],
    });
    servers.push(server);
    return server;
  }

  it('is up with the key ids and fingerprint, never the key material', async () => {
    const keyring = newKeyring(['k1', 'k2']);
    const server = await serve({ keyring: { active: keyring.active, keys: keyring.keys } });
    const response = await request(server.origin).get('/health/keyring');
    expect(response.status).toBe(200);
    const details = response.body.details.keyring;
    expect(details).toMatchObject({ status: 'up', activeKeyId: 'k1', ephemeral: false });
    expect(details.keyIds).toEqual(['k1', 'k2']);
    expect(details.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    for (const material of Object.values(keyring.keys))
      expect(response.text).not.toContain(Buffer.from(material).toString('base64'));
  });

  it('is down with an ephemeral key (503)', async () => {
    const server = await serve({ allowEphemeralKey: true });
    const response = await request(server.origin).get('/health/keyring');
    expect(response.status).toBe(503);
    expect(response.body.details.keyring).toMatchObject({ status: 'down', ephemeral: true });
  });

  it('pings Redis: up while it answers, down once it is gone or not configured', async () => {
    const keyring = newKeyring(['k1']);
    const keys = { active: keyring.active, keys: keyring.keys };
    const withRedis = await serve({ keyring: keys, redis: { url: redis.url } });
    const up = await request(withRedis.origin).get('/health/redis');
    expect(up.status).toBe(200);
    expect(up.body.details.redis).toMatchObject({ status: 'up', pingMs: expect.any(Number) });
    const without = await serve({ keyring: keys });
    const down = await request(without.origin).get('/health/redis');
    expect(down.status).toBe(503);
    expect(down.body.details.redis).toMatchObject({ status: 'down' });
  });
});

describe('the health example of docs/operations.md', () => {
  const page = readFileSync(join(__dirname, '../../..', 'docs', 'operations.md'), 'utf8');
  const section = page.slice(
    page.indexOf('\n## Health\n'),
    page.indexOf('\n## ', page.indexOf('\n## Health\n') + 1),
  );
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? '';

  it('compiles and answers ready (200) in an app without Redis, as copied', async () => {
    const directory = join(__dirname, '../../.generated');
    mkdirSync(directory, { recursive: true });
    const file = join(directory, 'operations-health.ts');
    writeFileSync(
      file,
      code
        .replace(/from 'nestjs-mcp\/health'/g, "from '../../src/entry/health'")
        .replace(/from 'nestjs-mcp'/g, "from '../../src/index'"),
    );
    const saved = process.env.REDIS_URL;
    delete process.env.REDIS_URL;
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the module is written above
    const { AppModule } = require(file) as { AppModule: Type<unknown> };
    const server = await startTestServer('express', { imports: [AppModule] });
    try {
      const ready = await request(server.origin).get('/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body.details.keyring.status).toBe('up');
    } finally {
      await server.close();
      if (saved !== undefined) process.env.REDIS_URL = saved;
    }
  });
});
