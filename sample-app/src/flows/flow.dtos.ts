import { IsBoolean, IsInt, IsNotEmpty, IsString, Max, MaxLength, Min } from 'class-validator';

export class TransferFundsDto {
  /** Decimal text, kept exact. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(32)
  amount!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  to!: string;
}

export class CollectRoundsDto {
  @IsInt()
  @Min(1)
  @Max(20)
  rounds!: number;
}

export class ApprovalAnswer {
  @IsBoolean()
  approve!: boolean;
}
