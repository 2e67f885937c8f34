import { Logger, type INestApplicationContext } from '@nestjs/common';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { MCP_ENDPOINT } from '../../kit/mcp.constants';
import { OperationRunner } from '../../pipeline/operation-runner';
import { SHUTDOWN_OPTIONS, type ShutdownOptions } from '../drain/shutdown.options';
import { CHANGE_CHANNEL } from '../fleet/change-channel';
import { FleetBus } from '../fleet/fleet-bus';
import { TRANSPORT_OPTIONS, type TransportOptions } from '../http/transport.options';
import { SdkServerFactory } from '../protocol/sdk-server.factory';
import type { McpStdioOptions } from './mcp-stdio-options.interface';
import { StdioInputRounds } from './stdio-input-rounds';
import { StdioLineTransport } from './stdio-line.transport';
import { StdioServers } from './stdio-servers';

const DEFAULT_ANSWER_TIMEOUT_MS = 300_000;
const DEFAULT_MAX_INPUT_ROUNDS = 10;
const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** What {@link McpStdio.serve} writes to: the output's own `write`, before stdout is guarded. */
type Output = Pick<NodeJS.WritableStream, 'write'>;

/**
 * Keeps `process.stdout` for the protocol while the connection is served: anything else written
 * to it (a `console.log`, a logger left on its default) goes to stderr instead. Answers the
 * stream's own `write` for the transport, and how to put things back.
 */
function guardStdout(): { output: Output; restore: () => void } {
  const stdout = process.stdout;
  const original = stdout.write;
  const output: Output = { write: original.bind(stdout) as Output['write'] };
  stdout.write = process.stderr.write.bind(process.stderr) as typeof stdout.write;
  return { output, restore: () => void (stdout.write = original) };
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new Error(`McpStdio.serve: ${name} must be a positive integer`);
  return value;
}

/**
 * Serves the application's MCP operations over stdin and stdout, as local agents and IDEs start an
 * MCP server: newline-delimited JSON-RPC, one connection for the life of the process. The same
 * module serves it as it serves HTTP — the same dispatcher, operation runner and Nest pipeline,
 * guards, validation, capability gating, sealed state and tasks — both the 2026-07-28 exchange
 * (input-required rounds carried by the client) and, after an `initialize`, a 2025-11-25 session
 * whose calls ask the client for input with server-to-client requests over the pipe.
 *
 * @example
 * ```ts
 * const app = await NestFactory.createApplicationContext(AppModule, { logger: new McpStdioLogger() });
 * await McpStdio.serve(app, { caller: { sub: process.env.MCP_USER } });
 * ```
 * @publicApi
 */
export class McpStdio {
  private constructor() {}

  /**
   * Serves `app` (a Nest application context: `NestFactory.createApplicationContext`, no HTTP
   * server) until stdin ends or the process gets `SIGTERM` or `SIGINT`; then reads no more,
   * lets the calls in flight finish and answer (within `graceMs`), closes the connection and the
   * application, and resolves. While it serves, only JSON-RPC is written to stdout: anything else
   * the process writes there goes to stderr. Use {@link McpStdioLogger} so Nest's own log lines
   * never reach stdout, before and after too; do not call `enableShutdownHooks()` (serve handles
   * the signals).
   */
  static async serve(app: INestApplicationContext, options: McpStdioOptions = {}): Promise<void> {
    const logger = new Logger('McpStdio');
    const answerTimeoutMs = positive(
      'answerTimeoutMs',
      options.answerTimeoutMs,
      DEFAULT_ANSWER_TIMEOUT_MS,
    );
    const maxInputRounds = positive(
      'maxInputRounds',
      options.maxInputRounds,
      DEFAULT_MAX_INPUT_ROUNDS,
    );
    const shutdown = app.get<ShutdownOptions>(SHUTDOWN_OPTIONS, { strict: false });
    const graceMs = positive('graceMs', options.graceMs, shutdown.graceMs || 1);
    const transport = app.get<TransportOptions>(TRANSPORT_OPTIONS, { strict: false });
    const endpoint = app.get<string>(MCP_ENDPOINT, { strict: false });
    const bus = app.get(FleetBus, { strict: false });
    const caller = options.caller && Object.freeze({ ...options.caller });
    const guarded = options.output === undefined ? guardStdout() : undefined;
    const output = guarded?.output ?? (options.output as Output);
    const line = new StdioLineTransport(
      options.input ?? process.stdin,
      output as NodeJS.WritableStream,
      transport.body,
      endpoint,
      caller,
      logger,
    );
    const servers = new StdioServers(
      app.get(SdkServerFactory, { strict: false }),
      line,
      new StdioInputRounds(app.get(OperationRunner, { strict: false }), {
        maxInputRounds,
        answerTimeoutMs,
      }),
      endpoint,
      caller,
      answerTimeoutMs,
    );
    const stopAnnouncing = bus.subscribe(CHANGE_CHANNEL, (event) => servers.announce(event));
    const handle = serveStdio(({ era }) => servers.create(era === 'legacy' ? 'legacy' : 'modern'), {
      transport: line,
      legacy: options.legacy ?? 'serve',
      onerror: (error) => logger.debug(`MCP over stdio: ${error.message}`),
    });
    let stopping: (() => void) | undefined;
    const stopped = new Promise<void>((done) => (stopping = done));
    const onSignal = () => stopping?.();
    for (const signal of SIGNALS) process.once(signal, onSignal);
    try {
      await Promise.race([line.inputEnded, stopped]);
      await line.drain(graceMs);
      await handle.close();
    } finally {
      for (const signal of SIGNALS) process.off(signal, onSignal);
      stopAnnouncing();
      guarded?.restore();
      await app.close();
    }
  }
}
