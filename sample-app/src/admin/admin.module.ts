import { Module } from '@nestjs/common';
import { AdminTokenGuard } from './admin-token.guard';
import { HealthController } from './health.controller';
import { KeyRotationSkill } from './key-rotation.skill';
import { KeyringAdminController } from './keyring-admin.controller';

@Module({
  controllers: [KeyringAdminController, HealthController],
  providers: [KeyRotationSkill, AdminTokenGuard],
})
export class AdminModule {}
