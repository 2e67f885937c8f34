import { Module, ValidationPipe } from '@nestjs/common';
import { APP_PIPE } from '@nestjs/core';
import { McpModule } from '../../src/index';
// Importing package.json also makes tsc copy it to dist-sample/, where the library's own
// version lookup (src/package-version.ts, ../package.json) expects it.
import { version } from '../../package.json';
import { ConformanceModule } from './conformance/conformance.module';
import { ExampleModule } from './example/example.module';

@Module({
  imports: [
    McpModule.forRootAsync({
      useFactory: () => ({
        serverInfo: { name: 'nestjs-mcp-sample', version },
        endpoint: process.env.MCP_ENDPOINT ?? '/mcp',
      }),
    }),
    ConformanceModule,
    ExampleModule,
  ],
  providers: [
    { provide: APP_PIPE, useValue: new ValidationPipe({ transform: true, whitelist: true }) },
  ],
})
export class AppModule {}
