import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { McpStdio, McpStdioLogger } from '../../src/entry/stdio';
import { AppModule } from './app.module';
import { rolesOf } from './example/roles.guard';

/**
 * The sample over stdio, as a desktop client or an IDE starts it:
 * `MCP_STDIO_USER=alice node dist-sample/sample-app/src/stdio.js`. `MCP_STDIO_USER` names the
 * caller, whom the sample's guards see as they see `Authorization: Bearer <name>` over HTTP (alice
 * has the agent role); without it the caller is nobody. Nothing but JSON-RPC goes to stdout: every
 * log line is on stderr. The process ends when stdin ends (or on SIGTERM), once the calls in flight
 * are answered.
 */
async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(AppModule, {
    logger: new McpStdioLogger(),
  });
  const user = process.env.MCP_STDIO_USER;
  await McpStdio.serve(app, {
    caller: user ? { sub: user, roles: rolesOf(user) } : undefined,
  });
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
