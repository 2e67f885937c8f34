import { Controller, Get, type Type } from '@nestjs/common';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';
import request from 'supertest';
import {
  McpHealthModule,
  McpKeyringHealthIndicator,
  McpRedisHealthIndicator,
} from '../src/entry/health';
import { McpModule, type McpModuleOptions } from '../src/index';
import { newKeyring } from './fixtures/sample-app';
import { ADAPTERS, startTestServer, type TestServer } from './utils/bootstrap';
import { docsCode, loadGenerated } from './utils/docs-code';
import { startRedisServer, type RedisServerHandle } from './utils/redis-server';

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

  it('runs the example of docs/operations.md: ready without Redis (no Redis check), and with Redis checked', async () => {
    const keyring = newKeyring(['k1']);
    const MCP_KEYRING = JSON.stringify({ active: keyring.active, keys: keyring.keys });
    for (const [name, REDIS_URL] of [
      [`docs-health-alone-${adapter}`, undefined],
      [`docs-health-fleet-${adapter}`, redis.url],
    ] as const) {
      // The health example of docs/operations.md as written, loaded with these variables set.
      const { AppModule } = loadGenerated<{ AppModule: Type<unknown> }>(
        name,
        docsCode('docs/operations.md', '## Health'),
        { env: { MCP_KEYRING, REDIS_URL } },
      );
      const server = await startTestServer(adapter, { imports: [AppModule] });
      servers.push(server);
      const ready = await request(server.origin).get('/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body.details.keyring).toMatchObject({ status: 'up', activeKeyId: 'k1' });
      if (REDIS_URL === undefined) expect(ready.body.details.redis).toBeUndefined();
      else expect(ready.body.details.redis).toMatchObject({ status: 'up' });
    }
  });

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
