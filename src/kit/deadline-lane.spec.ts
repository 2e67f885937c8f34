import { setTimeout as sleep } from 'node:timers/promises';
import { DeadlineLane } from './deadline-lane';

/** A callback for a lane and a promise of its firing (tests wait for it, never for the clock). */
function firing(fired: string[], name: string): { fire: () => void; done: Promise<void> } {
  let resolve!: () => void;
  const done = new Promise<void>((settle) => (resolve = settle));
  return {
    fire: () => {
      fired.push(name);
      resolve();
    },
    done,
  };
}

describe('DeadlineLane', () => {
  it('fires each deadline not cancelled once it is due, in order, and none cancelled', async () => {
    const lane = new DeadlineLane(30);
    const fired: string[] = [];
    const first = lane.add(firing(fired, 'first').fire);
    const second = lane.add(firing(fired, 'second').fire);
    lane.add(firing(fired, 'third').fire);
    lane.cancel(second);
    await sleep(5);
    const fourth = lane.add(firing(fired, 'fourth').fire);
    const last = firing(fired, 'fifth');
    lane.add(last.fire);
    lane.cancel(fourth);
    lane.cancel(fourth);
    expect(fired).toEqual([]);
    // The last one added fires last: by then every earlier one fired or never will.
    await last.done;
    expect(fired).toEqual(['first', 'third', 'fifth']);
    lane.cancel(first);
    expect(fired).toEqual(['first', 'third', 'fifth']);
  });

  it('fires nothing before its duration, measured from when each was added', async () => {
    const lane = new DeadlineLane(40);
    const fired: string[] = [];
    const added = performance.now();
    const early = firing(fired, 'early');
    lane.add(early.fire);
    await sleep(20);
    const later = performance.now();
    const late = firing(fired, 'late');
    lane.add(late.fire);
    await early.done;
    const earlyAfter = performance.now() - added;
    await late.done;
    const lateAfter = performance.now() - later;
    // Lower bounds only: a busy machine can make a timer late, never early.
    expect(earlyAfter).toBeGreaterThanOrEqual(39);
    expect(lateAfter).toBeGreaterThanOrEqual(39);
    expect(fired).toEqual(['early', 'late']);
  });

  it('keeps working after it emptied: a deadline added to an idle lane fires', async () => {
    const lane = new DeadlineLane(10);
    const fired: string[] = [];
    lane.cancel(lane.add(firing(fired, 'cancelled').fire));
    await sleep(30);
    const next = firing(fired, 'next');
    lane.add(next.fire);
    await next.done;
    expect(fired).toEqual(['next']);
  });
});
