import { adapterKeyPrefix, hasHashTag, withHashTag } from './cluster-key-prefix';

const cluster = { isCluster: true };
const single = { isCluster: false };

describe('cluster key prefixes', () => {
  it('knows a hash tag the way Redis Cluster hashes keys: the first {…} with something inside', () => {
    expect(hasHashTag('{app}:')).toBe(true);
    expect(hasHashTag('a{b}c{d}')).toBe(true);
    expect(hasHashTag('{}:app:')).toBe(false);
    expect(hasHashTag('app}:{')).toBe(false);
    expect(hasHashTag('app:')).toBe(false);
  });

  it('wraps a prefix without one, keeping a trailing colon outside', () => {
    expect(withHashTag('nestjs-mcp:')).toBe('{nestjs-mcp}:');
    expect(withHashTag('bull')).toBe('{bull}');
    expect(withHashTag('{app}:x:')).toBe('{app}:x:');
    expect(withHashTag('')).toBeUndefined();
    expect(withHashTag(':')).toBeUndefined();
  });

  it("chooses an adapter's prefix: as given off a cluster; tagged default or refusal on one", () => {
    expect(adapterKeyPrefix(single, undefined, 'nestjs-mcp:task:', 'RedisTaskStore')).toBe(
      'nestjs-mcp:task:',
    );
    expect(adapterKeyPrefix(single, 'app:', 'nestjs-mcp:task:', 'RedisTaskStore')).toBe('app:');
    expect(adapterKeyPrefix(cluster, undefined, 'nestjs-mcp:task:', 'RedisTaskStore')).toBe(
      '{nestjs-mcp:task}:',
    );
    expect(adapterKeyPrefix(cluster, '{app}:task:', 'x:', 'RedisTaskStore')).toBe('{app}:task:');
    expect(() => adapterKeyPrefix(cluster, 'app:', 'x:', 'RedisTaskStore')).toThrow(
      'RedisTaskStore: on a Redis Cluster the keyPrefix needs a hash tag, e.g. "{app}:"',
    );
    expect(() => adapterKeyPrefix(single, 7 as unknown as string, 'x:', 'RedisTaskStore')).toThrow(
      'RedisTaskStore: keyPrefix must be a string',
    );
  });
});
