import { unrepresentableNumberAt } from './unrepresentable-number';

describe('unrepresentableNumberAt', () => {
  it('finds Infinity where 1e400 or a 400-digit integer was written', () => {
    const params = JSON.parse(
      `{"arguments":{"ok":1.5,"list":[1,${'9'.repeat(400)}]},"_meta":{"x-y":{"n":-1e400}}}`,
    ) as unknown;
    expect(
      unrepresentableNumberAt((params as { arguments: unknown }).arguments, 'params.arguments'),
    ).toBe('params.arguments.list[1]');
    expect(unrepresentableNumberAt((params as { _meta: unknown })._meta, 'params._meta')).toBe(
      'params._meta["x-y"].n',
    );
  });

  it('answers undefined for finite numbers, however imprecise', () => {
    const parsed = JSON.parse('{"a":1e308,"b":1e-400,"c":12345678901234567890}') as unknown;
    expect(unrepresentableNumberAt(parsed, 'p')).toBe(undefined);
  });

  it('clips the path a hostile key would make long', () => {
    const path = unrepresentableNumberAt({ ['k'.repeat(10_000)]: Infinity }, 'params.arguments');
    expect(path?.length).toBeLessThanOrEqual(129);
  });
});
