/**
 * Bench server 1, the baseline: a bare Nest 11 controller on Express (or, with BENCH_VARIANT
 * `fastify`, on Fastify: the baseline of the Fastify rows). `POST /mcp`, the JSON body parsed by
 * Nest, answers the same bytes nestjs-mcp answers for the echo tools/call (no MCP handling at
 * all: no header, envelope or schema checks).
 */
import 'reflect-metadata';
import { Body, Controller, HttpCode, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { BENCH_SERVER_INFO, portOf, serveBench } from './harness';

interface CallBody {
  id: number | string;
  params: { arguments: { text: string } };
}

/**
 * With BARE_MEASURE=1: answers the length of the text, as the scale bench's `measure` tool does,
 * and reads JSON bodies up to 4 MB: the baseline of the argument-size curve.
 */
const MEASURE = process.env.BARE_MEASURE === '1';
/** The answer's text: the argument itself, or its length. Chosen once, at startup. */
const answerText = MEASURE ? (text: string) => String(text.length) : (text: string) => text;

@Controller()
class EchoController {
  @Post('mcp')
  @HttpCode(200)
  call(@Body() body: CallBody) {
    return {
      result: {
        content: [{ type: 'text', text: answerText(body.params.arguments.text) }],
        resultType: 'complete',
        _meta: { 'io.modelcontextprotocol/serverInfo': BENCH_SERVER_INFO },
      },
      jsonrpc: '2.0',
      id: body.id,
    };
  }
}

@Module({ controllers: [EchoController] })
class BareModule {}

serveBench(async () => {
  const adapter =
    process.env.BENCH_VARIANT === 'fastify' ? new FastifyAdapter() : new ExpressAdapter();
  const app = await NestFactory.create<NestExpressApplication>(BareModule, adapter, {
    logger: ['error'],
    ...(MEASURE && { bodyParser: false }),
  });
  if (MEASURE) app.useBodyParser('json', { limit: '4mb' });
  await app.listen(0, '127.0.0.1');
  return { port: portOf(app.getHttpServer()), close: () => app.close() };
});
