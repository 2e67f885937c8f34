// The app of the pack-and-install test (scripts/pack-install-test.mjs): the same source is compiled
// as a Nest 11 CommonJS app and as a Nest 12 ESM app ("type": "module"), with nodenext resolution
// and skipLibCheck off. `node dist/main.js express|fastify` listens on a free loopback port and
// prints its MCP endpoint.
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Injectable, Module, ValidationPipe } from '@nestjs/common';
import { APP_PIPE, NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { IsBoolean, IsString, MaxLength } from 'class-validator';
import {
  McpArgs,
  McpInputRequest,
  McpInputRequiredResult,
  McpMayRequestInput,
  McpModule,
  McpContext,
  McpRequestStateMode,
  McpTool,
} from 'nestjs-mcp';

class GreetDto {
  @IsString()
  @MaxLength(20)
  name!: string;
}

class DeleteFileDto {
  @IsString()
  @MaxLength(255)
  path!: string;
}

class ConfirmAnswer {
  @IsBoolean()
  confirm!: boolean;
}

@Injectable()
class Tools {
  @McpTool({ description: 'Greets someone by name' })
  greet(@McpArgs() { name }: GreetDto): string {
    return `Hello, ${name}!`;
  }

  @McpTool({
    description: 'Deletes a file after the user confirms',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  deleteFile(
    @McpArgs() { path }: DeleteFileDto,
    @McpContext() ctx: McpContext,
  ): string | McpInputRequiredResult {
    const asked = ctx.requestState.framework<{ asked: boolean }>()?.asked === true;
    const answer = asked ? ctx.inputResponses.find('confirm', ConfirmAnswer) : undefined;
    if (!answer) {
      return McpInputRequiredResult.builder()
        .inputRequest(
          'confirm',
          McpInputRequest.elicitForm({
            message: `Delete ${path}?`,
            requestedSchema: {
              type: 'object',
              properties: { confirm: { type: 'boolean' } },
              required: ['confirm'],
            },
          }),
        )
        .frameworkState({ asked: true })
        .build();
    }
    if (answer.action !== 'accept' || !answer.content?.confirm) return 'Kept the file';
    return `Deleted ${path}`;
  }
}

@Module({
  imports: [McpModule.forRoot({ serverInfo: { name: 'pack-test', version: '1.0.0' } })],
  providers: [Tools, { provide: APP_PIPE, useValue: new ValidationPipe({ whitelist: true }) }],
})
class AppModule {}

async function main(): Promise<void> {
  const adapter = process.argv[2] === 'fastify' ? new FastifyAdapter() : new ExpressAdapter();
  const app = await NestFactory.create(AppModule, adapter, { logger: ['error'] });
  app.enableShutdownHooks();
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  console.log(`listening on http://127.0.0.1:${port}/mcp`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
