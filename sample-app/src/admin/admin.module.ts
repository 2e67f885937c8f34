import { Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { KeyringAdminController } from './keyring-admin.controller';

@Module({ controllers: [KeyringAdminController, HealthController] })
export class AdminModule {}
