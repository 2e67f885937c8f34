import { ConsoleLogger } from '@nestjs/common';

/** Where `ConsoleLogger.printMessages` takes the stream to write to (Nest 11 and 12). */
const WRITE_STREAM_ARGUMENT = 3;

/**
 * Nest's `ConsoleLogger` writing every level to stderr: over stdio, stdout carries the protocol
 * and nothing else, and Nest's default logger writes `log`, `warn`, `debug` and `verbose` lines to
 * stdout. Give it to `NestFactory.createApplicationContext(AppModule, { logger: new
 * McpStdioLogger() })`; its options are `ConsoleLogger`'s (`logLevels`, `json`, `colors`…).
 *
 * @publicApi
 */
export class McpStdioLogger extends ConsoleLogger {
  // Every argument passed on as given (Nest 12 adds one), but the stream.
  protected override printMessages(...args: unknown[]): void {
    args[WRITE_STREAM_ARGUMENT] = 'stderr';
    (super.printMessages as (...all: unknown[]) => void).apply(this, args);
  }
}
