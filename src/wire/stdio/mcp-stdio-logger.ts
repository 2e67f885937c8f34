import { ConsoleLogger, type LogLevel } from '@nestjs/common';

/**
 * Nest's `ConsoleLogger` writing every level to stderr: over stdio, stdout carries the protocol
 * and nothing else, and Nest's default logger writes `log`, `warn`, `debug` and `verbose` lines to
 * stdout. Give it to `NestFactory.createApplicationContext(AppModule, { logger: new
 * McpStdioLogger() })`; its options are `ConsoleLogger`'s (`logLevels`, `json`, `colors`…).
 *
 * @publicApi
 */
export class McpStdioLogger extends ConsoleLogger {
  protected override printMessages(
    messages: unknown[],
    context?: string,
    logLevel?: LogLevel,
    _writeStreamType?: 'stdout' | 'stderr',
    errorStack?: unknown,
  ): void {
    super.printMessages(messages, context, logLevel, 'stderr', errorStack);
  }
}
