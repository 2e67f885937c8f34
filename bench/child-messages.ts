/**
 * The parent side of bench/servers/harness.ts: waiting for a bench server's next report.
 */
import type { ChildProcess } from 'node:child_process';
import type { BenchReport } from './servers/harness';

/**
 * The next report of `type` from `child`; rejects when none comes within `timeoutMs` or the
 * child exits first.
 */
export function nextMessage<T extends BenchReport['type']>(
  child: ChildProcess,
  type: T,
  timeoutMs: number,
): Promise<Extract<BenchReport, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no ${type} message within ${timeoutMs} ms`));
    }, timeoutMs);
    const onMessage = (message: BenchReport) => {
      if (message.type !== type) return;
      cleanup();
      resolve(message as Extract<BenchReport, { type: T }>);
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`server exited (code ${code}) while waiting for ${type}`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}
