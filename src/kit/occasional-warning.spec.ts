import { OccasionalWarning } from './occasional-warning';

describe('OccasionalWarning', () => {
  it('logs the first report of a window, counts the ones it suppresses and names them with the next', () => {
    const lines: string[] = [];
    let now = 1_000;
    const warning = new OccasionalWarning(
      (line) => lines.push(line),
      30_000,
      () => now,
    );
    warning.report('forged message ignored');
    warning.report('forged message ignored');
    warning.report('forged message ignored');
    expect(lines).toEqual(['forged message ignored']);
    now += 30_000;
    warning.report('forged message ignored');
    expect(lines).toEqual([
      'forged message ignored',
      'forged message ignored (and 2 more since the last report)',
    ]);
    now += 30_000;
    warning.report('forged message ignored');
    expect(lines[2]).toBe('forged message ignored');
  });
});
