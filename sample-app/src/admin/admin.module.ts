import { Module } from '@nestjs/common';
import { KeyringAdminController } from './keyring-admin.controller';

@Module({ controllers: [KeyringAdminController] })
export class AdminModule {}
