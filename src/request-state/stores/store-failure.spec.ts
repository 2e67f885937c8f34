import { Logger } from '@nestjs/common';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { STORE_RETRY_AFTER_MS } from '../../kit/errors/store-unavailable';
import { OutageLog } from '../../redis/outage-log';
import { RedisCommandError } from '../../redis/redis-command.error';
import { ConsumedStateStoreError } from './one-time/consumed-state-store.error';
import { storeFailureAnswer } from './store-failure';

describe('storeFailureAnswer', () => {
  const logger = { warn: jest.fn(), error: jest.fn() };
  const outageLogger = new Logger('test');
  let outage: OutageLog;

  beforeEach(() => {
    jest.clearAllMocks();
    jest.spyOn(outageLogger, 'warn').mockImplementation(() => undefined);
    outage = new OutageLog(outageLogger, 'The store');
  });

  const answer = (error: unknown, reason: string) =>
    storeFailureAnswer(error, reason, 'things', 'X could not be kept', logger, outage);

  it('answers no room as Server busy naming what is short, with the store’s retry hint', () => {
    const full = answer(new ConsumedStateStoreError('full', 2_500), 'full');
    expect(full).toMatchObject({
      code: McpErrorCode.ServerBusy,
      message: 'Server busy: too many things',
      data: { retryAfterMs: 2_500 },
    });
    const share = answer(new ConsumedStateStoreError('share', 700), 'share');
    expect(share.message).toBe('Server busy: too many things for this caller');
    expect(logger.warn.mock.calls).toEqual([
      ['X could not be kept (full)'],
      ['X could not be kept (share)'],
    ]);
    expect(logger.error).not.toHaveBeenCalled();
  });

  it('answers an outage as the retryable store-unavailable, logged once per outage', () => {
    const first = answer(new RedisCommandError('timeout', true), 'timeout');
    answer(new RedisCommandError('unavailable'), 'unavailable');
    expect(first).toMatchObject({
      code: McpErrorCode.ServerBusy,
      message: 'Server busy: the store is unavailable',
      data: { retryAfterMs: STORE_RETRY_AFTER_MS },
    });
    expect(outageLogger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn).not.toHaveBeenCalled();
    expect(logger.error).not.toHaveBeenCalled();
  });

  it('answers anything else as a bare internal error, its reason logged clipped', () => {
    const fault = answer(new TypeError('boom'), 'store_failure');
    expect(fault).toMatchObject({ code: McpErrorCode.InternalError, message: 'Internal error' });
    expect(fault.data).toBeUndefined();
    expect(logger.error).toHaveBeenCalledWith('X could not be kept (store_failure)');
    answer(new Error('x'), 'r'.repeat(1_000));
    expect((logger.error.mock.calls[1] as [string])[0].length).toBeLessThan(400);
  });
});
