import { McpStdioLogger } from './mcp-stdio-logger';

describe('McpStdioLogger', () => {
  it('writes every level to stderr and nothing to stdout', () => {
    const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const logger = new McpStdioLogger({
        logLevels: ['log', 'warn', 'error', 'debug', 'verbose'],
      });
      logger.log('a log line', 'Ctx');
      logger.warn('a warning');
      logger.debug('a debug line');
      logger.verbose('a verbose line');
      logger.error('an error', 'stack trace');
      expect(stdout).not.toHaveBeenCalled();
      const written = stderr.mock.calls.map(([chunk]) => String(chunk)).join('');
      for (const line of ['a log line', 'a warning', 'a debug line', 'a verbose line', 'an error'])
        expect(written).toContain(line);
    } finally {
      stdout.mockRestore();
      stderr.mockRestore();
    }
  });
});
