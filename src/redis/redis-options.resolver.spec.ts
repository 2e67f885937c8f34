import { InvalidModuleOptionsError } from '../errors/invalid-module-options.error';
import type { McpRedisClient } from './mcp-redis-client';
import type { McpRedisOptions } from './mcp-redis-options.interface';
import { resolveRedisOptions } from './redis-options.resolver';

const client = { status: 'ready', set: () => Promise.resolve('OK') } as unknown as McpRedisClient;

function failure(options: unknown): InvalidModuleOptionsError {
  try {
    resolveRedisOptions(options as McpRedisOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidModuleOptionsError);
    return error as InvalidModuleOptionsError;
  }
  throw new Error('expected the option to be refused');
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

  it('needs exactly one of url, sentinel and client', () => {
    expect(failure({}).message).toContain('needs exactly one of "url", "sentinel" and "client"');
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
});
