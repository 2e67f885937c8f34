import { Module } from '@nestjs/common';
import { AdminTokenGuard } from './admin-token.guard';
import { HealthController } from './health.controller';
import { KeyRotationSkill } from './key-rotation.skill';
import { KeyringAdminController } from './keyring-admin.controller';
import { AuditAdminController } from './audit-admin.controller';

@Module({
  controllers: [KeyringAdminController, HealthController, AuditAdminController],
  providers: [KeyRotationSkill, AdminTokenGuard],
})
export class AdminModule {}
