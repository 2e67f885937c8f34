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

/**
 * The event-loop max delay (ms) inside the server while `action` ran: reset, settle, act, read.
 */
export async function loopDelayDuring(
  server: SampleProcess,
  action: () => Promise<void>,
): Promise<number> {
  await server.resetHealth();
  await sleep(AFTER_RESET_MS);
  await action();
  await sleep(BEFORE_READ_MS);
  return (await server.health()).eventLoopDelayMs.max;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Measured delays of one row of the table, per adapter. */
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
