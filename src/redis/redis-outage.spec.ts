import { ConsumedStateStoreError } from '../request-state/stores/one-time/consumed-state-store.error';
import { RedisCommandError } from './redis-command.error';
import { isOutageReason, outageOf } from './redis-outage';

const replyError = (message: string) => Object.assign(new Error(message), { name: 'ReplyError' });

describe('outageOf', () => {
  it('names Redis away — unreachable, timing out, late, failing over, full — by its reason only', () => {
    expect(outageOf(new RedisCommandError('unavailable'))).toBe('unavailable');
    expect(outageOf(new RedisCommandError('timeout', true))).toBe('timeout');
    expect(outageOf(new RedisCommandError('late'))).toBe('late');
    for (const code of [
      'OOM',
      'READONLY',
      'CLUSTERDOWN',
      'LOADING',
      'MASTERDOWN',
      'TRYAGAIN',
      'BUSY',
      'NOREPLICAS',
      'MISCONF',
    ]) {
      expect(outageOf(replyError(`${code} something about key secret:1`))).toBe(`rejected ${code}`);
      expect(outageOf(new RedisCommandError(`rejected ${code}`))).toBe(`rejected ${code}`);
    }
    expect(outageOf(new Error('Connection is closed.'))).toBe('unavailable');
    expect(outageOf(new Error('connect ECONNREFUSED 127.0.0.1:6379'))).toBe('unavailable');
    expect(outageOf(Object.assign(new Error('x'), { name: 'MaxRetriesPerRequestError' }))).toBe(
      'unavailable',
    );
    expect(outageOf(Object.assign(new Error('x'), { name: 'ClusterAllFailedError' }))).toBe(
      'unavailable',
    );
    expect(outageOf(new ConsumedStateStoreError('in doubt'))).toBe('in doubt');
    expect(outageOf(new ConsumedStateStoreError('not replicated'))).toBe('not replicated');
  });

  it('leaves faults as faults: a programming error, a refused configuration, a script error', () => {
    expect(outageOf(new TypeError("Cannot read properties of undefined (reading 'closed')"))).toBe(
      undefined,
    );
    expect(outageOf(new RedisCommandError('failed TypeError'))).toBe(undefined);
    for (const message of [
      'NOPERM this user has no permissions',
      'WRONGTYPE Operation against a key holding the wrong kind of value',
      "CROSSSLOT Keys in request don't hash to the same slot",
      'ERR user_script:1: Script attempted to access nonexistent global variable',
    ])
      expect(outageOf(replyError(message))).toBe(undefined);
    expect(outageOf(new ConsumedStateStoreError('invalid_id'))).toBe(undefined);
    expect(outageOf(new Error('Task id already exists'))).toBe(undefined);
    expect(outageOf(undefined)).toBe(undefined);
  });

  it('agrees with isOutageReason on store reasons', () => {
    expect(isOutageReason('rejected OOM')).toBe(true);
    expect(isOutageReason('rejected NOPERM')).toBe(false);
    expect(isOutageReason('full')).toBe(false);
  });
});
