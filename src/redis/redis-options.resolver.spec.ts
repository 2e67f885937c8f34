import { InvalidModuleOptionsError } from '../kit/errors/invalid-module-options.error';
import type { McpRedisClient } from './mcp-redis-client';
import type { McpRedisOptions } from './mcp-redis-options.interface';
import { resolveRedisOptions } from './redis-options.resolver';
import { thrownBy } from '../kit/thrown.spec-helper';

const client = { status: 'ready', set: () => Promise.resolve('OK') } as unknown as McpRedisClient;

function failure(options: unknown): InvalidModuleOptionsError {
  return thrownBy(() => resolveRedisOptions(options as McpRedisOptions), InvalidModuleOptionsError);
}

describe('resolveRedisOptions', () => {
  it('is off unless given', () => {
    expect(resolveRedisOptions(undefined)).toBeUndefined();
  });

  it('fills the key prefix and command timeout', () => {
    expect(resolveRedisOptions({ url: 'redis://cache:6379/2' })).toEqual({
      url: 'redis://cache:6379/2',
      keyPrefix: 'nestjs-mcp:',
      commandTimeoutMs: 1_000,
    });
    expect(resolveRedisOptions({ client, keyPrefix: '{billing}:', commandTimeoutMs: 250 })).toEqual(
      { client, keyPrefix: '{billing}:', commandTimeoutMs: 250 },
    );
    expect(resolveRedisOptions({ url: 'rediss://cache', keyPrefix: '' })?.keyPrefix).toBe('');
  });

  it('needs exactly one of url, sentinel, cluster and client', () => {
    expect(failure({}).message).toContain(
      'needs exactly one of "url", "sentinel", "cluster" and "client"',
    );
    expect(failure({ url: 'redis://cache', cluster: { nodes: ['a:1'] } }).option).toBe('redis');
    expect(
      failure({ url: 'redis://cache', sentinel: { sentinels: ['s:26379'], name: 'm' } }).option,
    ).toBe('redis');
    expect(failure({ url: 'redis://cache', client }).option).toBe('redis');
    expect(failure('redis://cache').option).toBe('redis');
    expect(failure(null).option).toBe('redis');
  });

  it('accepts only redis:// and rediss:// URLs and never repeats one in the error', () => {
    for (const url of ['http://user:hunter2@cache', 'cache:6379', 'redis//hunter2', 42]) {
      const error = failure({ url });
      expect(error.option).toBe('redis.url');
      expect(error.message).not.toContain('hunter2');
    }
  });

  it('takes a client only if it looks like an ioredis client', () => {
    for (const bad of [{}, { status: 'ready' }, { set: () => undefined }, 'client', 1])
      expect(failure({ client: bad }).option).toBe('redis.client');
  });

  it('bounds the key prefix and command timeout', () => {
    expect(failure({ client, keyPrefix: 'x'.repeat(257) }).option).toBe('redis.keyPrefix');
    expect(failure({ client, keyPrefix: 7 }).option).toBe('redis.keyPrefix');
    for (const commandTimeoutMs of [0, -1, 1.5, 60_001, Number.NaN, '100'])
      expect(failure({ client, commandTimeoutMs }).option).toBe('redis.commandTimeoutMs');
    expect(resolveRedisOptions({ client, commandTimeoutMs: 60_000 })?.commandTimeoutMs).toBe(
      60_000,
    );
  });

  it('takes a Sentinel set as host:port entries and a master name, never repeating a password', () => {
    expect(
      resolveRedisOptions({
        sentinel: {
          sentinels: ['sentinel-a:26379', '10.0.0.2:26380', '[::1]:26381'],
          name: 'mcp',
          password: 'hunter2',
        },
      }),
    ).toEqual({
      sentinel: {
        sentinels: [
          { host: 'sentinel-a', port: 26379 },
          { host: '10.0.0.2', port: 26380 },
          { host: '::1', port: 26381 },
        ],
        name: 'mcp',
        password: 'hunter2',
        tls: false,
        db: 0,
      },
      keyPrefix: 'nestjs-mcp:',
      commandTimeoutMs: 1_000,
    });
    const cases: [unknown, string][] = [
      [{ sentinels: [], name: 'mcp' }, 'redis.sentinel.sentinels'],
      [{ sentinels: 'a:1', name: 'mcp' }, 'redis.sentinel.sentinels'],
      [{ sentinels: ['a'], name: 'mcp' }, 'redis.sentinel.sentinels[0]'],
      [{ sentinels: ['a:1', 'b:70000'], name: 'mcp' }, 'redis.sentinel.sentinels[1]'],
      [{ sentinels: ['a:1'] }, 'redis.sentinel.name'],
      [{ sentinels: ['a:1'], name: 'mcp', password: 5 }, 'redis.sentinel.password'],
      [{ sentinels: ['a:1'], name: 'mcp', db: -1 }, 'redis.sentinel.db'],
      [null, 'redis.sentinel'],
    ];
    for (const [sentinel, option] of cases) {
      const error = failure({ sentinel });
      expect(error.option).toBe(option);
      expect(error.message).not.toContain('hunter2');
    }
  });

  it('takes a cluster as host:port nodes and gives the key prefix a hash tag', () => {
    expect(
      resolveRedisOptions({
        cluster: { nodes: ['redis-0:6379', '[::1]:7000'], password: 'hunter2', tls: true },
      }),
    ).toEqual({
      cluster: {
        nodes: [
          { host: 'redis-0', port: 6379 },
          { host: '::1', port: 7000 },
        ],
        password: 'hunter2',
        tls: true,
      },
      keyPrefix: '{nestjs-mcp}:',
      untaggedKeyPrefix: 'nestjs-mcp:',
      commandTimeoutMs: 1_000,
    });
    const tagged = (keyPrefix: string) =>
      resolveRedisOptions({ cluster: { nodes: ['a:1'] }, keyPrefix })?.keyPrefix;
    expect(tagged('billing')).toBe('{billing}');
    expect(tagged('billing:mcp:')).toBe('{billing:mcp}:');
    expect(tagged('{billing}:mcp:')).toBe('{billing}:mcp:');
    // An empty tag hashes the whole key: not a tag.
    expect(tagged('{}:mcp:')).toBe('{{}:mcp}:');
    expect(failure({ cluster: { nodes: ['a:1'] }, keyPrefix: '' }).option).toBe('redis.keyPrefix');
    const cases: [unknown, string][] = [
      [{ nodes: [] }, 'redis.cluster.nodes'],
      [{ nodes: ['a:1', 'b'] }, 'redis.cluster.nodes[1]'],
      [{ nodes: ['a:1'], username: 1 }, 'redis.cluster.username'],
      [{ nodes: ['a:1'], tls: 'yes' }, 'redis.cluster.tls'],
      [[], 'redis.cluster.nodes'],
      [null, 'redis.cluster'],
    ];
    for (const [cluster, option] of cases) {
      const error = failure({ cluster, password: 'hunter2' });
      expect(error.option).toBe(option);
      expect(error.message).not.toContain('hunter2');
    }
  });

  it('gives the key prefix a hash tag for an app-owned ioredis Cluster too', () => {
    const clusterClient = { ...client, isCluster: true } as McpRedisClient;
    expect(resolveRedisOptions({ client: clusterClient })).toMatchObject({
      keyPrefix: '{nestjs-mcp}:',
      untaggedKeyPrefix: 'nestjs-mcp:',
    });
    expect(resolveRedisOptions({ client })).not.toHaveProperty('untaggedKeyPrefix');
  });

  it('takes waitForReplicas, its timeout below the command timeout, never on a cluster', () => {
    expect(
      resolveRedisOptions({ url: 'redis://cache', waitForReplicas: { replicas: 1 } }),
    ).toMatchObject({ waitForReplicas: { replicas: 1, timeoutMs: 500 } });
    expect(
      resolveRedisOptions({
        url: 'redis://cache',
        commandTimeoutMs: 2_000,
        waitForReplicas: { replicas: 2, timeoutMs: 300 },
      }),
    ).toMatchObject({ waitForReplicas: { replicas: 2, timeoutMs: 300 } });
    const cases: [unknown, string][] = [
      [{ replicas: 0 }, 'redis.waitForReplicas.replicas'],
      [{ replicas: 17 }, 'redis.waitForReplicas.replicas'],
      [{ replicas: 1, timeoutMs: 1_000 }, 'redis.waitForReplicas.timeoutMs'],
      [3, 'redis.waitForReplicas'],
    ];
    for (const [waitForReplicas, option] of cases)
      expect(failure({ url: 'redis://cache', waitForReplicas }).option).toBe(option);
    expect(
      failure({ cluster: { nodes: ['a:1'] }, waitForReplicas: { replicas: 1 } }).message,
    ).toContain('not available on a cluster');
  });
});
