import { Body, Controller, Get, HttpCode, Post, UseFilters, UseGuards } from '@nestjs/common';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { KeyringManager, type KeyringSnapshot } from '../../../src/index';
import { AdminTokenGuard } from './admin-token.guard';
import { KeyringErrorFilter } from './keyring-error.filter';

class KeyIdDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  id!: string;
}

class StageKeyDto extends KeyIdDto {
  /** Base64 key material, at least 32 bytes decoded. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(1024)
  key!: string;
}

/** Fleet key rotation over HTTP: stage, compare fingerprints, activate, remove. Needs `MCP_ADMIN_TOKEN`. */
@Controller('admin/keyring')
@UseGuards(AdminTokenGuard)
@UseFilters(KeyringErrorFilter)
export class KeyringAdminController {
  constructor(private readonly keyring: KeyringManager) {}

  @Get()
  snapshot(): KeyringSnapshot {
    return this.keyring.snapshot();
  }

  @Post('stage')
  @HttpCode(200)
  stage(@Body() body: StageKeyDto): KeyringSnapshot {
    this.keyring.stageVerificationKey(body.id, body.key);
    return this.keyring.snapshot();
  }

  @Post('activate')
  @HttpCode(200)
  activate(@Body() body: KeyIdDto): KeyringSnapshot {
    this.keyring.activateStagedKey(body.id);
    return this.keyring.snapshot();
  }

  @Post('remove')
  @HttpCode(200)
  remove(@Body() body: KeyIdDto): KeyringSnapshot {
    this.keyring.removeVerificationKey(body.id);
    return this.keyring.snapshot();
  }
}
