import { ClassSerializerInterceptor, Module, ValidationPipe } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { McpModule } from 'nestjs-mcp';
import { BearerJwtStrategy } from './auth/bearer-jwt.strategy.js';
import { JwtAuthGuard } from './auth/jwt-auth.guard.js';
import { AllExceptionsFilter } from './common/all-exceptions.filter.js';
import { ConnectionStore } from './connections/connection.store.js';
import { ConnectionsController } from './connections/connections.controller.js';
import { ConnectTools } from './tools/connect.tools.js';
import { DeleteFileTools } from './tools/delete-file.tools.js';
import { GreetTools } from './tools/greet.tools.js';
import { PlanTripTools } from './tools/plan-trip.tools.js';
import { ReportTools } from './tools/report.tools.js';

@Module({
  imports: [
    PassportModule,
    McpModule.forRoot({
      serverInfo: { name: 'user-app', version: '1.0.0' },
      // One keyring for every instance, from the secret store (docs/getting-started.md#a-keyring).
      keyring: process.env.MCP_KEYRING ? JSON.parse(process.env.MCP_KEYRING) : undefined,
    }),
  ],
  controllers: [ConnectionsController],
  providers: [
    BearerJwtStrategy,
    ConnectionStore,
    { provide: APP_GUARD, useClass: JwtAuthGuard },
    { provide: APP_INTERCEPTOR, useClass: ClassSerializerInterceptor },
    { provide: APP_FILTER, useClass: AllExceptionsFilter },
    { provide: APP_PIPE, useValue: new ValidationPipe({ whitelist: true }) },
    GreetTools,
    DeleteFileTools,
    ConnectTools,
    PlanTripTools,
    ReportTools,
  ],
})
export class AppModule {}
