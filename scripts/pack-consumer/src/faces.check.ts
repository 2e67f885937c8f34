// Type-checked (not run) by the pack-and-install test: every entry point whose declarations need
// only the required peers (`/health` and `/throttler` need their optional peers), read with
// skipLibCheck off, and an extension of the app's own written against `nestjs-mcp/extension` and
// composed with `configured`, as a third-party package would be.
import { Inject, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import * as root from 'nestjs-mcp';
import { InvalidModuleOptionsError, McpModule } from 'nestjs-mcp';
import * as audit from 'nestjs-mcp/audit';
import * as awsKms from 'nestjs-mcp/aws-kms';
import {
  McpListedResources,
  McpMethodTable,
  McpResourceReaders,
  McpServerCapabilities,
  configured,
  defineMcpExtension,
  port,
  portProvider,
  unguardedResource,
} from 'nestjs-mcp/extension';
import * as pkcs11 from 'nestjs-mcp/pkcs11';
import * as redis from 'nestjs-mcp/redis';
import * as runtime from 'nestjs-mcp/runtime';
import * as sessions from 'nestjs-mcp/sessions';
import * as skills from 'nestjs-mcp/skills';
import * as stdio from 'nestjs-mcp/stdio';
import * as stores from 'nestjs-mcp/stores';
import * as tasks from 'nestjs-mcp/tasks';
import * as testing from 'nestjs-mcp/testing';

export const faces: readonly object[] = [
  root,
  audit,
  awsKms,
  pkcs11,
  redis,
  runtime,
  sessions,
  skills,
  stdio,
  stores,
  tasks,
  testing,
];

interface Greetings {
  readonly greeting: string;
}

const GREETINGS = Symbol('Greetings');
const GreetingLog = Symbol('GreetingLog');

interface GreetingLog {
  add(name: string): Promise<number>;
}

class MemoryGreetingLog implements GreetingLog {
  private count = 0;

  async add(): Promise<number> {
    return ++this.count;
  }
}

@Injectable()
class GreetingsInstaller implements OnModuleInit {
  constructor(
    @Inject(GREETINGS) private readonly options: Greetings,
    @Inject(GreetingLog) private readonly log: GreetingLog,
    private readonly methods: McpMethodTable,
    private readonly capabilities: McpServerCapabilities,
    private readonly listed: McpListedResources,
    private readonly readers: McpResourceReaders,
  ) {}

  onModuleInit(): void {
    this.methods.register('greetings/greet', async (params, _sdk, exchange) => ({
      text: `${this.options.greeting}, ${String(params.name)} (${exchange.request.ip ?? '?'})`,
      count: await this.log.add(String(params.name)),
    }));
    this.capabilities.declareExtension('com.example/greetings', {
      greeting: this.options.greeting,
    });
    this.listed.replace('com.example/greetings', [
      unguardedResource({ uri: 'greeting://hello', name: 'Hello' }),
    ]);
    this.readers.add('greeting://', async (uri) => ({
      contents: [{ uri, mimeType: 'text/plain', text: this.options.greeting }],
    }));
  }
}

export const greetingsExtension = defineMcpExtension<'greetings', Partial<Greetings>, Greetings>({
  name: 'greetings',
  options: {
    key: 'greetings',
    token: GREETINGS,
    resolve: (options) => {
      const greeting = options?.greeting ?? 'Hello';
      if (greeting === '') throw new InvalidModuleOptionsError('greetings.greeting', 'is empty');
      return { greeting };
    },
  },
  providers: () => [
    portProvider(port<GreetingLog>(GreetingLog, 'greetings.log'), {
      fromOptions: () => undefined,
      fallback: () => new MemoryGreetingLog(),
    }),
    GreetingsInstaller,
  ],
});

@Module({
  imports: [
    McpModule.forRoot({
      serverInfo: { name: 'greetings', version: '1.0.0' },
      extensions: [configured(greetingsExtension, { greeting: 'Hi' })],
    }),
  ],
})
export class GreetingsApp {}
