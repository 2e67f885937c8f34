import { setTimeout as sleep } from 'node:timers/promises';
import { DeadlineLane } from './deadline-lane';

describe('DeadlineLane', () => {
  it('fires each deadline not cancelled once it is due, in order, and none cancelled', async () => {
    const lane = new DeadlineLane(30);
    const fired: string[] = [];
    const first = lane.add(() => fired.push('first'));
    const second = lane.add(() => fired.push('second'));
    lane.add(() => fired.push('third'));
    lane.cancel(second);
    await sleep(5);
    const fourth = lane.add(() => fired.push('fourth'));
    lane.add(() => fired.push('fifth'));
    lane.cancel(fourth);
    lane.cancel(fourth);
    expect(fired).toEqual([]);
    await sleep(80);
    expect(fired).toEqual(['first', 'third', 'fifth']);
    lane.cancel(first);
    expect(fired).toEqual(['first', 'third', 'fifth']);
  });

  it('fires nothing before its duration, measured from when each was added', async () => {
    const lane = new DeadlineLane(40);
    const added = performance.now();
    const firedAfter: number[] = [];
    lane.add(() => firedAfter.push(performance.now() - added));
    await sleep(20);
    const later = performance.now();
    lane.add(() => firedAfter.push(performance.now() - later));
    await sleep(100);
    expect(firedAfter).toHaveLength(2);
    for (const elapsed of firedAfter) expect(elapsed).toBeGreaterThanOrEqual(39);
  });

  it('keeps working after it emptied: a deadline added to an idle lane fires', async () => {
    const lane = new DeadlineLane(10);
    const fired: number[] = [];
    lane.cancel(lane.add(() => fired.push(1)));
    await sleep(30);
    lane.add(() => fired.push(2));
    await sleep(40);
    expect(fired).toEqual([2]);
  });
});
