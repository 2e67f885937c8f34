import { Module } from '@nestjs/common';
import { AdminTokenGuard } from '../admin/admin-token.guard';
import { RuntimeToolsController } from './runtime-tools.controller';
import { RuntimeTools } from './runtime-tools.service';

/** Operators' tools, registered at run time and kept in step across the fleet. */
@Module({
  controllers: [RuntimeToolsController],
  providers: [RuntimeTools, AdminTokenGuard],
  exports: [RuntimeTools],
})
export class RuntimeToolsModule {}
