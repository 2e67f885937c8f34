import { Logger } from '@nestjs/common';
import { createTestOperationContext } from '../../operations/context/create-test-operation-context';
import {
  ANONYMOUS_PARTITION,
  DefaultAuthorizationPartitionResolver,
} from './authorization-partition.resolver';
import { CallerPartitions } from './caller-partitions';

const resolver = new DefaultAuthorizationPartitionResolver();

function partitionOf(options: Parameters<typeof createTestOperationContext>[0]): string {
  return resolver.resolve(createTestOperationContext(options));
}

describe('DefaultAuthorizationPartitionResolver', () => {
  it('is anonymous without a principal', () => {
    expect(partitionOf({})).toBe(ANONYMOUS_PARTITION);
  });

  it('identifies a passport user by id, then sub, userId, username, email', () => {
    expect(partitionOf({ user: { id: 'alice', sub: 'x' } })).toBe('[["user","alice"]]');
    expect(partitionOf({ user: { sub: 'auth0|7' } })).toBe('[["user","auth0|7"]]');
    expect(partitionOf({ user: { email: 'a@example.com', roles: [] } })).toBe(
      '[["user","a@example.com"]]',
    );
  });

  it('keeps numeric ids apart from their text', () => {
    expect(partitionOf({ user: { id: 42 } })).toBe('[["user",42]]');
    expect(partitionOf({ user: { id: '42' } })).not.toBe(partitionOf({ user: { id: 42 } }));
  });

  it('reads the configured field only', () => {
    const byTenantUser = new DefaultAuthorizationPartitionResolver('uid');
    const ctx = createTestOperationContext({ user: { id: 'shared', uid: 'u-9' } });
    expect(byTenantUser.resolve(ctx)).toBe('[["user","u-9"]]');
    expect(byTenantUser.resolve(createTestOperationContext({ user: { id: 'shared' } }))).toBe(
      ANONYMOUS_PARTITION,
    );
  });

  it('never reads inherited properties as the id', () => {
    const user = Object.create({ id: 'from-prototype' }) as object;
    expect(partitionOf({ user })).toBe(ANONYMOUS_PARTITION);
  });

  it('encodes OAuth client and subject unambiguously, numeric subjects included', () => {
    const auth = (clientId: string, sub?: unknown) => ({
      token: 't',
      clientId,
      scopes: [],
      extra: sub === undefined ? {} : { sub },
    });
    const aWithB = partitionOf({ authInfo: auth('a', 'b') });
    const aColonB = partitionOf({ authInfo: auth('a:b') });
    expect(aWithB).toBe('[["oauth","a","b"]]');
    expect(aColonB).toBe('[["oauth","a:b",null]]');
    expect(partitionOf({ authInfo: auth('a', 7) })).toBe('[["oauth","a",7]]');
    expect(partitionOf({ authInfo: auth('a', 7) })).not.toBe(partitionOf({ authInfo: auth('a') }));
  });

  it('combines a user and an OAuth client when both are present', () => {
    expect(
      partitionOf({
        user: { id: 'alice' },
        authInfo: { token: 't', clientId: 'c', scopes: [], extra: { sub: 's' } },
      }),
    ).toBe('[["user","alice"],["oauth","c","s"]]');
  });
});

describe('CallerPartitions', () => {
  function delegate(): CallerPartitions {
    const resolver = new DefaultAuthorizationPartitionResolver();
    return new CallerPartitions(resolver);
  }

  it('warns once when a credentialed request still resolves to anonymous', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const partitions = delegate();
      const credentialed = createTestOperationContext({ headers: { authorization: 'Bearer x' } });
      expect(await partitions.resolve(credentialed)).toBe(ANONYMOUS_PARTITION);
      await partitions.resolve(createTestOperationContext({ headers: { cookie: 'sid=1' } }));
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toContain('userIdField');
    } finally {
      warn.mockRestore();
    }
  });

  it('stays quiet for anonymous requests without credentials and for identified users', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const partitions = delegate();
      await partitions.resolve(createTestOperationContext({}));
      await partitions.resolve(
        createTestOperationContext({ headers: { authorization: 'Bearer x' }, user: { id: 'a' } }),
      );
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });
});
