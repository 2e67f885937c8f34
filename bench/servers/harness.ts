/**
 * The child side of `bench/http.bench.ts`: every server entry in this folder starts its server on
 * 127.0.0.1 with an ephemeral port and hands it to {@link serveBench}, which reports the port to
 * the parent over IPC and measures this process's CPU time (user + system, `process.cpuUsage()`)
 * between the parent's `cpu-start` and `cpu-stop` messages.
 */

/** The server name and version every bench server reports. */
export const BENCH_SERVER_INFO = { name: 'bench', version: '1.0.0' };

/** Messages the parent sends. */
export type BenchCommand =
  | { type: 'cpu-start' }
  | { type: 'cpu-stop' }
  | { type: 'exit' }
  | { type: 'run'; name: string; arg?: unknown };

/** Messages a child sends. */
export type BenchReport =
  | { type: 'ready'; port: number; wire: string; startupMs?: number }
  | { type: 'ran'; name: string; value: unknown }
  | { type: 'cpu-started' }
  | { type: 'cpu'; userUs: number; systemUs: number };

export interface StartedServer {
  port: number;
  /** Protocol revision served (`2026-07-28`, or the older one a library is limited to). */
  wire?: string;
  /** How long creating and starting the app took, in ms. */
  startupMs?: number;
  /** What the parent may ask this server to do (`run` messages), by name. */
  commands?: Record<string, (arg: unknown) => unknown>;
  close(): Promise<void>;
}

function report(message: BenchReport): void {
  process.send?.(message);
}

export function serveBench(start: () => Promise<StartedServer>): void {
  if (!process.send)
    throw new Error('start this file with child_process.fork (bench/http.bench.ts)');
  start().then(
    (server) => {
      let mark: NodeJS.CpuUsage | undefined;
      process.on('message', (message: BenchCommand) => {
        if (message.type === 'cpu-start') {
          mark = process.cpuUsage();
          report({ type: 'cpu-started' });
        } else if (message.type === 'cpu-stop') {
          const delta = process.cpuUsage(mark);
          report({ type: 'cpu', userUs: delta.user, systemUs: delta.system });
        } else if (message.type === 'run') {
          const command = server.commands?.[message.name];
          void Promise.resolve(command?.(message.arg)).then((value) =>
            report({ type: 'ran', name: message.name, value }),
          );
        } else if (message.type === 'exit') {
          void server.close().finally(() => process.exit(0));
        }
      });
      // The parent going away must not leave a server behind.
      process.on('disconnect', () => process.exit(0));
      report({
        type: 'ready',
        port: server.port,
        wire: server.wire ?? '2026-07-28',
        startupMs: server.startupMs,
      });
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}

/** The port a listening `node:http` server (or Nest's) is bound to. */
export function portOf(server: { address(): unknown }): number {
  const address = server.address();
  if (!address || typeof address !== 'object' || !('port' in address)) {
    throw new Error('server is not listening on a TCP port');
  }
  return (address as { port: number }).port;
}
