/**
 * Bench servers 5–8: nestjs-mcp, one echo tool. BENCH_VARIANT selects the app:
 * - `express`: McpModule.forRoot + an `@McpTool` with a raw JSON Schema `inputSchema`, Express;
 * - `fastify`: the same app on Fastify;
 * - `dto`: the arguments as a class-validator DTO, a global `ValidationPipe` and a global guard
 *   (checks the `Authorization` header every bench request carries), Express;
 * - `sealed`: a FRAMEWORK_PROTECTED tool that asks for a form once, then echoes; the bench sends
 *   its second round (answer + sealed state), Express.
 * - `declared` / `unsealed`: an echo tool that declares a form request (with `requestState` none /
 *   FRAMEWORK_PROTECTED), called with answers and no state: the sealed round minus opening state.
 * - `traced`: the `express` app with OpenTelemetry tracing and metrics on (in-memory exporter);
 * - `traced-sampled`: the same with a parent-based 10 % trace sampler, as a busy deployment runs it;
 * - `aead-floor`: the plain echo tool, whose handler also opens one AES-256-GCM token with node:crypto
 *   (sealed at startup, the size of the sealed flow's state): what any authenticated-encrypted state
 *   costs a request on this platform, whoever opens it.
 * - `audit-jsonl` / `audit-jsonl-fastify`: the `express` app with the audit trail on, best-effort,
 *   JSON lines to a file in the OS temp folder (docs/audit.md);
 * - `audit-strict-redis` / `audit-strict-redis-fastify`: the audit trail strict, on a Redis stream
 *   (a private redis-server this process starts; its CPU is not counted in the server's).
 */
import 'reflect-metadata';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CanActivate,
  type ExecutionContext,
  Injectable,
  Module,
  type Type,
  ValidationPipe,
} from '@nestjs/common';
import { APP_GUARD, APP_PIPE, NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { IsString, MaxLength } from 'class-validator';
import {
  McpArgs,
  McpInputRequest,
  McpInputRequiredResult,
  McpMayRequestInput,
  McpModule,
  McpContext,
  McpRequestStateMode,
  McpTool,
} from '../../src/index';
import { BENCH_SERVER_INFO, portOf, serveBench } from './harness';
import { installBenchTelemetry } from './telemetry-setup';
import { startRedisServer } from '../../test/utils/redis-server';

const ECHO_SCHEMA = {
  type: 'object',
  properties: { text: { type: 'string', maxLength: 1024 } },
  required: ['text'],
};

const mcpModule = McpModule.forRoot({
  serverInfo: BENCH_SERVER_INFO,
  keyring: { active: 'bench', keys: { bench: randomBytes(32) } },
});

@Injectable()
class RawSchemaEchoTool {
  @McpTool({ name: 'echo', description: 'Returns its text argument', inputSchema: ECHO_SCHEMA })
  echo(@McpArgs('text') text: string): string {
    return text;
  }
}

class EchoDto {
  @IsString()
  @MaxLength(1024)
  text!: string;
}

@Injectable()
class DtoEchoTool {
  @McpTool({ name: 'echo', description: 'Returns its text argument' })
  echo(@McpArgs() { text }: EchoDto): string {
    return text;
  }
}

@Injectable()
class BearerGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>();
    return request.headers.authorization === 'Bearer bench';
  }
}

@Injectable()
class SealedEchoTool {
  @McpTool({
    name: 'echo',
    description: 'Asks for a confirmation once, then returns its text argument',
    inputSchema: ECHO_SCHEMA,
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  echo(
    @McpArgs('text') text: string,
    @McpContext() ctx: McpContext,
  ): McpInputRequiredResult | string {
    const asked = ctx.requestState.framework<{ asked: boolean }>()?.asked === true;
    const answer = asked ? ctx.inputResponses.find('confirm') : undefined;
    if (answer?.kind === 'elicitation' && answer.action === 'accept') return text;
    return McpInputRequiredResult.builder()
      .inputRequest(
        'confirm',
        McpInputRequest.elicitForm({
          message: 'Echo it?',
          requestedSchema: {
            type: 'object',
            properties: { ok: { type: 'boolean' } },
            required: ['ok'],
          },
        }),
      )
      .frameworkState({ asked: true })
      .build();
  }
}

@Module({ imports: [mcpModule], providers: [RawSchemaEchoTool] })
class RawSchemaModule {}

@Module({
  imports: [mcpModule],
  providers: [
    DtoEchoTool,
    { provide: APP_PIPE, useValue: new ValidationPipe({ transform: true, whitelist: true }) },
    { provide: APP_GUARD, useClass: BearerGuard },
  ],
})
class DtoModule {}

@Injectable()
class DeclaredEchoTool {
  @McpTool({ name: 'echo', description: 'Returns its text argument', inputSchema: ECHO_SCHEMA })
  @McpMayRequestInput({ type: 'elicitation.form' })
  echo(@McpArgs('text') text: string): string {
    return text;
  }
}

@Injectable()
class UnsealedEchoTool {
  @McpTool({
    name: 'echo',
    description: 'Returns its text argument',
    inputSchema: ECHO_SCHEMA,
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  echo(@McpArgs('text') text: string): string {
    return text;
  }
}

const FLOOR_KEY = randomBytes(32);
/** As long as the sealed flow's associated data (the binding and header as JSON). */
const FLOOR_AAD = Buffer.alloc(240, 'a');
const FLOOR_NONCE_BYTES = 12;
const FLOOR_TAG_BYTES = 16;
/** `<nonce>.<ciphertext+tag>` in base64url, of a payload the size of the sealed flow's. */
const FLOOR_TOKEN = (() => {
  const nonce = randomBytes(FLOOR_NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', FLOOR_KEY, nonce);
  cipher.setAAD(FLOOR_AAD);
  const sealed = Buffer.concat([
    cipher.update('{"i":"1234567","k":{"confirm":"elicitation"},"s":{"asked":true}}'),
    cipher.final(),
    cipher.getAuthTag(),
  ]);
  return `${nonce.toString('base64url')}.${sealed.toString('base64url')}`;
})();

@Injectable()
class AeadFloorEchoTool {
  @McpTool({ name: 'echo', description: 'Returns its text argument', inputSchema: ECHO_SCHEMA })
  echo(@McpArgs('text') text: string): string {
    const dot = FLOOR_TOKEN.indexOf('.');
    const nonce = Buffer.from(FLOOR_TOKEN.slice(0, dot), 'base64url');
    const sealed = Buffer.from(FLOOR_TOKEN.slice(dot + 1), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', FLOOR_KEY, nonce);
    decipher.setAAD(FLOOR_AAD);
    decipher.setAuthTag(sealed.subarray(sealed.length - FLOOR_TAG_BYTES));
    const plaintext = decipher.update(sealed.subarray(0, sealed.length - FLOOR_TAG_BYTES));
    decipher.final();
    if (plaintext.length === 0) throw new Error('the floor token opened empty');
    return text;
  }
}

@Module({ imports: [mcpModule], providers: [AeadFloorEchoTool] })
class AeadFloorModule {}

@Module({ imports: [mcpModule], providers: [SealedEchoTool] })
class SealedModule {}

@Module({ imports: [mcpModule], providers: [DeclaredEchoTool] })
class DeclaredModule {}

@Module({ imports: [mcpModule], providers: [UnsealedEchoTool] })
class UnsealedModule {}

const variant = process.env.BENCH_VARIANT ?? 'express';
const modules: Record<string, Type<unknown>> = {
  express: RawSchemaModule,
  fastify: RawSchemaModule,
  dto: DtoModule,
  sealed: SealedModule,
  'aead-floor': AeadFloorModule,
  declared: DeclaredModule,
  unsealed: UnsealedModule,
  // The `express` app with OpenTelemetry tracing and metrics on (bench/servers/telemetry-setup.ts).
  traced: RawSchemaModule,
  'traced-sampled': RawSchemaModule,
};

/** The echo app with the audit trail: best-effort JSON lines, or strict on a Redis stream. */
async function auditedModule(strictOnRedis: boolean): Promise<{
  module: Type<unknown>;
  close: () => Promise<void>;
}> {
  const folder = mkdtempSync(join(tmpdir(), 'bench-audit-'));
  const redis = strictOnRedis ? await startRedisServer() : undefined;
  const audited = McpModule.forRoot({
    serverInfo: BENCH_SERVER_INFO,
    keyring: { active: 'bench', keys: { bench: randomBytes(32) } },
    ...(redis && { redis: { url: redis.url } }),
    audit: redis
      ? { sink: 'redis', policy: 'strict' }
      : { sink: 'jsonl', file: join(folder, 'audit.jsonl') },
  });
  @Module({ imports: [audited], providers: [RawSchemaEchoTool] })
  class AuditedModule {}
  return {
    module: AuditedModule,
    close: async () => {
      await redis?.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

serveBench(async () => {
  if (variant.startsWith('audit-')) {
    const audited = await auditedModule(variant.startsWith('audit-strict-redis'));
    const adapter = variant.endsWith('-fastify') ? new FastifyAdapter() : new ExpressAdapter();
    const app = await NestFactory.create(audited.module, adapter, { logger: ['error'] });
    await app.listen(0, '127.0.0.1');
    return {
      port: portOf(app.getHttpServer()),
      close: async () => {
        await app.close();
        await audited.close();
      },
    };
  }
  const module = modules[variant];
  if (!module) throw new Error(`unknown BENCH_VARIANT ${variant}`);
  if (variant === 'traced') installBenchTelemetry();
  if (variant === 'traced-sampled') installBenchTelemetry({ sampledRatio: 0.1 });
  const adapter = variant === 'fastify' ? new FastifyAdapter() : new ExpressAdapter();
  const app = await NestFactory.create(module, adapter, { logger: ['error'] });
  await app.listen(0, '127.0.0.1');
  return { port: portOf(app.getHttpServer()), close: () => app.close() };
});
