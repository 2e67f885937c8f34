import { Module } from '@nestjs/common';
import { APP_PIPE } from '@nestjs/core';
import { McpModule } from '../../src/index';
// Importing package.json also makes tsc copy it to dist-sample/, where the library's own
// version lookup (src/package-version.ts, ../package.json) expects it.
import { version } from '../../package.json';
import { ConformanceModule } from './conformance/conformance.module';
import { ExampleModule } from './example/example.module';
import { AdminModule } from './admin/admin.module';
import { FlowsModule } from './flows/flows.module';
import { ExpensesModule } from './expenses/expenses.module';
import { TasksModule } from './tasks/tasks.module';
import { ProbesModule } from './probes/probes.module';
import { RuntimeToolsModule } from './runtime-tools/runtime-tools.module';
import { sampleMcpOptions } from './sample-config';
import { BoundedValidationPipe } from './bounded-validation.pipe';

@Module({
  imports: [
    McpModule.forRootAsync({
      useFactory: () => sampleMcpOptions(version),
    }),
    ConformanceModule,
    ExampleModule,
    FlowsModule,
    ExpensesModule,
    TasksModule,
    AdminModule,
    ProbesModule,
    RuntimeToolsModule,
  ],
  providers: [
    {
      provide: APP_PIPE,
      useValue: new BoundedValidationPipe({ transform: true, whitelist: true }),
    },
  ],
})
export class AppModule {}
