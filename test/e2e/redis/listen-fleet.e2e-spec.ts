import Redis from 'ioredis';
import { McpModule, McpNotifier } from '../../../src/index';
import { newKeyring } from '../../fixtures/sample-app';
import { ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import { freshId } from '../../utils/mcp';
import { startRedisServer, type RedisServerHandle } from '../../utils/redis-server';
import { SseReader, type OpenStream } from '../../utils/sse';
import { openListenStream } from '../../utils/listen-stream';
import { until } from '../../utils/wait';

const PREFIX = 'listen-fleet:';
const CHANNEL = `${PREFIX}fleet`;
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

describe.each(ADAPTERS)('listen streams across two instances sharing Redis, over %s', (adapter) => {
  let redis: RedisServerHandle;
  let inspector: Redis;
  let a: TestServer;
  let b: TestServer;
  const open: OpenStream[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    inspector = new Redis(redis.url);
    const keyring = newKeyring(['k1']);
    const app = () =>
      startTestServer(adapter, {
        imports: [
          McpModule.forRoot({
            keyring: { active: keyring.active, keys: { ...keyring.keys } },
            redis: { url: redis.url, keyPrefix: PREFIX },
          }),
        ],
      });
    a = await app();
    b = await app();
    await until(
      async () => Number(((await inspector.pubsub('NUMSUB', CHANNEL)) as [string, number])[1]),
      { done: (count) => count === 2, what: 'both instances on the fleet channel' },
    );
  });

  afterAll(async () => {
    for (const stream of open) stream.close();
    await a?.close();
    await b?.close();
    await inspector?.quit();
    await redis?.close();
  });

  async function listen(server: TestServer, notifications: Record<string, unknown>) {
    const id = freshId();
    const response = await openListenStream(server.url, notifications, { id });
    open.push(response);
    const frames = new SseReader(response.body);
    expect((await frames.next()).method).toBe('notifications/subscriptions/acknowledged');
    return { id, frames };
  }

  it("delivers another instance's changes to this instance's streams, each as it asked, in order", async () => {
    const tools = await listen(b, { toolsListChanged: true });
    const readme = await listen(b, { resourceSubscriptions: ['catalog://readme'] });
    const notifier = a.app.get(McpNotifier);
    notifier.resourceUpdated('catalog://other');
    notifier.promptsChanged();
    notifier.resourceUpdated('catalog://readme');
    notifier.toolsChanged();
    expect(await tools.frames.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { [SUBSCRIPTION_ID]: tools.id } },
    });
    expect(await readme.frames.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: 'catalog://readme', _meta: { [SUBSCRIPTION_ID]: readme.id } },
    });
  });
});
