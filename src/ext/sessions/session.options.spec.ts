import { InvalidModuleOptionsError } from '../../kit/errors/invalid-module-options.error';
import { MemorySessionStore } from './store/memory-session.store';
import { resolveSessionOptions } from './session.options';

describe('resolveSessionOptions', () => {
  it('fills safe defaults for every bound', () => {
    expect(resolveSessionOptions(undefined)).toEqual({
      enabled: true,
      maxSessions: 10_000,
      maxSessionsPerCaller: 100,
      idleTimeoutMs: 1_800_000,
      maxInputRounds: 10,
      answerTimeoutMs: 300_000,
      maxPendingRequests: 16,
      maxSubscriptions: 100,
      maxSessionBytes: 8_192,
      store: undefined,
    });
  });

  it('keeps the per-caller default within maxSessions', () => {
    expect(resolveSessionOptions({ maxSessions: 10 }).maxSessionsPerCaller).toBe(10);
  });

  it('takes values in range and a store that implements the port', () => {
    const store = new MemorySessionStore();
    expect(
      resolveSessionOptions({
        maxSessions: 5,
        maxSessionsPerCaller: 2,
        answerTimeoutMs: 100,
        store,
        enabled: false,
      }),
    ).toMatchObject({
      maxSessions: 5,
      maxSessionsPerCaller: 2,
      answerTimeoutMs: 100,
      store,
      enabled: false,
    });
  });

  it.each([
    [{ maxSessions: 0 }, 'sessions.maxSessions'],
    [{ maxSessions: 1.5 }, 'sessions.maxSessions'],
    [{ maxSessionsPerCaller: '3' }, 'sessions.maxSessionsPerCaller'],
    [{ maxSessions: 2, maxSessionsPerCaller: 3 }, 'sessions.maxSessionsPerCaller'],
    [{ idleTimeoutMs: 999 }, 'sessions.idleTimeoutMs'],
    [{ maxInputRounds: 1_001 }, 'sessions.maxInputRounds'],
    [{ answerTimeoutMs: 99 }, 'sessions.answerTimeoutMs'],
    [{ maxPendingRequests: 0 }, 'sessions.maxPendingRequests'],
    [{ maxSubscriptions: -1 }, 'sessions.maxSubscriptions'],
    [{ enabled: 'yes' }, 'sessions.enabled'],
    [{ store: {} }, 'sessions.store'],
  ])('names the bad option in %j', (sessions, name) => {
    expect(() => resolveSessionOptions(sessions as never)).toThrow(InvalidModuleOptionsError);
    expect(() => resolveSessionOptions(sessions as never)).toThrow(name);
  });
});
