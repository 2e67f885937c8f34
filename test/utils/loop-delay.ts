import type { SampleProcess } from './sample-process';
import { sleep } from './wait';

/**
 * The sample app's delay histogram samples every 10 ms and records nothing until its second tick
 * after a reset (the first only starts the clock), so a stall right after the reset would go
 * unseen: wait a few ticks first. Each recorded value includes the 10 ms interval itself.
 */
const AFTER_RESET_MS = 30;
/** Lets the tick that a stall delayed fire before the histogram is read. */
const BEFORE_READ_MS = 10;

/** What the server spent while an action ran. */
export interface ServerCost {
  /** Its event-loop max delay, ms: wall-clock, so it grows when the machine is busy. */
  readonly stallMs: number;
  /** The CPU time it used (user + system, all its threads), ms: what the work itself cost. */
  readonly cpuMs: number;
  /** The wall-clock time the CPU time was measured over, ms. */
  readonly wallMs: number;
  /** How far its RSS rose above where it was when the action began, at its peak, bytes (Linux). */
  readonly peakRssGrowthBytes: number;
}

/**
 * What the server spent while `action` ran: reset the delay histogram and the peak RSS, settle,
 * read the CPU clock and RSS, act, let the delayed tick fire, read them again. The CPU window also holds the two health
 * exchanges around the action (the same for every action, so measure a trivial one to subtract).
 */
export async function costDuring(
  server: SampleProcess,
  action: () => Promise<void>,
): Promise<ServerCost> {
  await server.resetHealth();
  await sleep(AFTER_RESET_MS);
  const before = await server.health();
  const started = performance.now();
  await action();
  await sleep(BEFORE_READ_MS);
  const after = await server.health();
  return {
    stallMs: after.eventLoopDelayMs.max,
    cpuMs: after.cpuMs - before.cpuMs,
    wallMs: performance.now() - started,
    peakRssGrowthBytes: Math.max(0, after.maxRssBytes - before.rssBytes),
  };
}

/** The event-loop max delay (ms) inside the server while `action` ran. */
export async function loopDelayDuring(
  server: SampleProcess,
  action: () => Promise<void>,
): Promise<number> {
  return (await costDuring(server, action)).stallMs;
}

/**
 * The CPU time (ms, user + system of this process) `work` takes, the least of `runs` runs: a
 * reference workload measured on this machine, at this moment, with the clock a busy machine
 * does not run faster.
 */
export function cpuTimeOf(work: () => unknown, runs = 7): number {
  let least = Infinity;
  for (let run = 0; run < runs; run++) {
    const started = process.cpuUsage();
    work();
    const used = process.cpuUsage(started);
    least = Math.min(least, (used.user + used.system) / 1000);
  }
  return least;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Measured values of each row of the table, per column. */
export class DelayTable {
  private readonly rows = new Map<string, Map<string, readonly number[]>>();
  private readonly notes: string[] = [];

  record(row: string, column: string, samples: readonly number[]): void {
    let columns = this.rows.get(row);
    if (!columns) this.rows.set(row, (columns = new Map()));
    columns.set(column, samples);
  }

  note(line: string): void {
    this.notes.push(line);
  }

  /** A plain-text table: median (min) of each row's samples per column. */
  render(columns: readonly string[], title: string): string {
    const width = Math.max(...[...this.rows.keys()].map((row) => row.length), 10);
    const cell = (samples: readonly number[] | undefined) =>
      (samples?.length
        ? `${median(samples).toFixed(1)} (${Math.min(...samples).toFixed(1)})`
        : '—'
      ).padStart(16);
    const lines = [
      title,
      `${'shape'.padEnd(width)}${columns.map((column) => column.padStart(16)).join('')}`,
      ...[...this.rows].map(
        ([row, byColumn]) =>
          `${row.padEnd(width)}${columns.map((column) => cell(byColumn.get(column))).join('')}`,
      ),
      ...this.notes,
    ];
    return lines.join('\n');
  }
}
