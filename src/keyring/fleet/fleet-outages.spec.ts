import { RedisCommandError } from '../../redis/redis-command.error';
import { KeyringError } from '../keyring.error';
import type { ProtectionKey } from '../protection-key';
import { withFleetOutagesAsKeyringErrors } from './fleet-outages';
import type { KeyringFleet } from './keyring-fleet';

function failingWith(error: unknown): KeyringFleet {
  const fail = () => Promise.reject(error);
  return { staged: fail, activate: fail, removed: fail, view: fail };
}

describe('withFleetOutagesAsKeyringErrors', () => {
  it('throws Redis away as a KeyringError with retryAfterMs, naming the reason and nothing Redis said', async () => {
    const fleet = withFleetOutagesAsKeyringErrors(
      failingWith(
        Object.assign(new Error('READONLY You cannot write (key k)'), { name: 'ReplyError' }),
      ),
    );
    for (const call of [
      () => fleet.staged({ id: 'k2' } as ProtectionKey),
      () => fleet.activate('k2'),
      () => fleet.removed('k2'),
      () => fleet.view(),
    ]) {
      const error = await call().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(KeyringError);
      expect(error).toMatchObject({ retryAfterMs: 1_000 });
      expect((error as Error).message).toContain('(rejected READONLY)');
      expect((error as Error).message).not.toContain('key k');
    }
    const timedOut = withFleetOutagesAsKeyringErrors(failingWith(new RedisCommandError('timeout')));
    await expect(timedOut.view()).rejects.toMatchObject({ retryAfterMs: 1_000 });
  });

  it('leaves refusals and faults as they are', async () => {
    const refusal = new KeyringError('Key "k2" is not staged');
    await expect(withFleetOutagesAsKeyringErrors(failingWith(refusal)).activate('k2')).rejects.toBe(
      refusal,
    );
    const fault = new TypeError('boom');
    await expect(withFleetOutagesAsKeyringErrors(failingWith(fault)).view()).rejects.toBe(fault);
  });
});
