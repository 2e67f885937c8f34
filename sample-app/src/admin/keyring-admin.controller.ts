import {
  BadRequestException,
  Body,
  Controller,
  Get,
  HttpCode,
  Post,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { KeyringManager, type KeyringSnapshot } from '../../../src/index';
import { AdminTokenGuard } from './admin-token.guard';
import { KeyringErrorFilter } from './keyring-error.filter';

class KeyIdDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  id!: string;
}

/**
 * A key to stage: exactly one of `key` (base64 material, at least 32 bytes decoded: this instance
 * only), `pkcs11` (the label of a key resident in the HSM) or `kms` (a data key's base64
 * CiphertextBlob). A wrapped key (`pkcs11`, `kms`) reaches every instance when the fleet shares Redis.
 */
class StageKeyDto extends KeyIdDto {
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(1024)
  key?: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  pkcs11?: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(8192)
  kms?: string;
}

/** Fleet key rotation over HTTP: stage, compare fingerprints, activate, remove. Needs `MCP_ADMIN_TOKEN`. */
@Controller('admin/keyring')
@UseGuards(AdminTokenGuard)
@UseFilters(KeyringErrorFilter)
export class KeyringAdminController {
  constructor(private readonly keyring: KeyringManager) {}

  @Get()
  snapshot(): Promise<KeyringSnapshot> {
    // With a fleet (Redis): every live instance's report, and whether they agree.
    return this.keyring.fleetSnapshot();
  }

  @Post('stage')
  @HttpCode(200)
  async stage(@Body() body: StageKeyDto): Promise<KeyringSnapshot> {
    const given = (['key', 'pkcs11', 'kms'] as const).filter((field) => body[field] !== undefined);
    if (given.length !== 1)
      throw new BadRequestException('Give exactly one of "key", "pkcs11" or "kms"');
    const [field] = given;
    // Raw material stages on this instance only; with a fleet (Redis) it is refused, as it never travels.
    return this.keyring.stage(
      body.id,
      field === 'key' ? (body.key as string) : { [field]: body[field] as string },
    );
  }

  @Post('activate')
  @HttpCode(200)
  activate(@Body() body: KeyIdDto): Promise<KeyringSnapshot> {
    return this.keyring.activate(body.id);
  }

  @Post('remove')
  @HttpCode(200)
  remove(@Body() body: KeyIdDto): Promise<KeyringSnapshot> {
    return this.keyring.remove(body.id);
  }
}
