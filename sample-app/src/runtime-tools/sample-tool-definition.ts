import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';

/**
 * A tool an operator defines at run time (`POST /admin/tools`): its name, description and input
 * schema, a reply with `{{field}}` placeholders filled from the arguments, who may see it, and
 * whether it asks a yes/no form before replying. Plain JSON: what the fleet keeps in Redis.
 */
export class SampleToolDefinition {
  @IsString()
  @Matches(/^[A-Za-z0-9_./-]{1,64}$/)
  name!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(1_000)
  description!: string;

  @IsObject()
  inputSchema!: Record<string, unknown>;

  @IsString()
  @MaxLength(10_000)
  reply!: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(256, { each: true })
  visibleTo?: string[];

  @IsOptional()
  @IsBoolean()
  confirm?: boolean;
}
