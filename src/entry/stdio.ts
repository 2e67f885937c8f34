// `nestjs-mcp/stdio`: the same module served over stdin and stdout, for a Nest standalone
// application (`NestFactory.createApplicationContext`) that local agents and IDEs start as a child
// process (docs/stdio.md).
export { McpStdio } from '../wire/stdio/mcp-stdio';
export { McpStdioLogger } from '../wire/stdio/mcp-stdio-logger';
export type { McpStdioOptions } from '../wire/stdio/mcp-stdio-options.interface';
