import { InvalidModuleOptionsError } from '../../kit/errors/invalid-module-options.error';
import { REQUEST_STATE_LIMIT_BOUNDS, resolveRequestStateLimits } from './request-state-limits';
import { thrownBy } from '../../kit/thrown.spec-helper';

function refusal(limits: Record<string, unknown>): InvalidModuleOptionsError {
  return thrownBy(() => resolveRequestStateLimits(limits), InvalidModuleOptionsError);
}

const DAY_MS = 86_400_000;

describe('resolveRequestStateLimits', () => {
  it('defaults to a 64 KiB token, 48 KiB plaintext, 15 minutes and 10 rounds', () => {
    expect(resolveRequestStateLimits(undefined)).toEqual({
      maxEncodedBytes: 65_536,
      maxDecodedBytes: 49_152,
      maxLifetimeMs: 900_000,
      maxRounds: 10,
      maxConsumedStates: 1_000_000,
      maxHandleDataBytes: 16_384,
      maxStateHandles: 10_000,
      maxStateHandlesPerCaller: 100,
      maxStateHandleBytes: 67_108_864,
      maxConsumedStatesPerCaller: 10_000,
      singleUse: false,
    });
  });

  it('accepts every bound itself, keeping each value as given', () => {
    const highest = {
      maxEncodedBytes: 1_048_576,
      maxDecodedBytes: 1_048_576,
      maxLifetimeMs: 30 * DAY_MS,
      maxRounds: 1_000,
      maxConsumedStates: 100_000_000,
      maxHandleDataBytes: 1_048_576,
      maxStateHandles: 10_000_000,
      maxStateHandlesPerCaller: 10_000_000,
      maxStateHandleBytes: 17_179_869_184,
      maxConsumedStatesPerCaller: 100_000_000,
      singleUse: true,
    };
    expect(resolveRequestStateLimits(highest)).toEqual(highest);
    const lowest = {
      maxEncodedBytes: 1_024,
      maxDecodedBytes: 64,
      maxLifetimeMs: 1,
      maxRounds: 1,
      maxConsumedStates: 1,
      maxHandleDataBytes: 2,
      maxStateHandles: 1,
      maxStateHandlesPerCaller: 1,
      maxStateHandleBytes: 1_024,
      maxConsumedStatesPerCaller: 1,
    };
    expect(resolveRequestStateLimits(lowest)).toEqual({ ...lowest, singleUse: false });
  });

  const ENCODED = 'from 1,024 to 1,048,576';
  const DECODED = 'from 64 to 1,048,576';
  const LIFETIME = 'from 1 to 2,592,000,000';
  const ROUNDS = 'from 1 to 1,000';
  it.each([
    ['maxEncodedBytes', 1_023, `${ENCODED}, got 1023`],
    ['maxEncodedBytes', 1_048_577, `${ENCODED}, got 1048577`],
    ['maxEncodedBytes', 0, `${ENCODED}, got 0`],
    ['maxDecodedBytes', 63, `${DECODED}, got 63`],
    ['maxLifetimeMs', 30 * DAY_MS + 1, `${LIFETIME}, got 2592000001`],
    ['maxLifetimeMs', Number.MAX_SAFE_INTEGER, `${LIFETIME}, got 9007199254740991`],
    ['maxLifetimeMs', 0, `${LIFETIME}, got 0`],
    ['maxLifetimeMs', -1, `${LIFETIME}, got -1`],
    ['maxLifetimeMs', 1.5, `${LIFETIME}, got 1.5`],
    ['maxLifetimeMs', Infinity, `${LIFETIME}, got Infinity`],
    ['maxLifetimeMs', '900000', `${LIFETIME}, got 900000`],
    ['maxRounds', 1_001, `${ROUNDS}, got 1001`],
    ['maxRounds', 0, `${ROUNDS}, got 0`],
    ['maxRounds', NaN, `${ROUNDS}, got NaN`],
    ['maxConsumedStates', 0, 'from 1 to 100,000,000, got 0'],
  ])('refuses %s = %p, naming the option and its range', (name, value, problem) => {
    const error = refusal({ [name]: value });
    expect(error.option).toBe(`requestState.${name}`);
    expect(error.message).toBe(
      `Invalid McpModule option "requestState.${name}": must be an integer ${problem}`,
    );
  });

  it.each([['yes'], [1], [null]])('refuses singleUse = %p: it must be a boolean', (value) => {
    const error = refusal({ singleUse: value });
    expect(error.option).toBe('requestState.singleUse');
    expect(error.message).toContain('must be a boolean');
  });

  it('refuses a plaintext limit over the token limit', () => {
    const error = refusal({ maxEncodedBytes: 2_000, maxDecodedBytes: 2_001 });
    expect(error.option).toBe('requestState.maxDecodedBytes');
    expect(error.message).toContain('must not exceed requestState.maxEncodedBytes');
    expect(refusal({ maxEncodedBytes: 2_000 }).option).toBe('requestState.maxDecodedBytes');
  });

  it('keeps a lifetime at its bound a safe integer past any plausible clock', () => {
    const { max } = REQUEST_STATE_LIMIT_BOUNDS.maxLifetimeMs;
    expect(Number.isSafeInteger(Date.UTC(9999, 11, 31) + max)).toBe(true);
  });
});
