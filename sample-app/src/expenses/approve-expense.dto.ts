import { IsBoolean, IsNotEmpty, IsString, Matches, MaxLength } from 'class-validator';

export class ApproveExpenseDto {
  /** Decimal text, kept exact (e.g. `"120.50"`). */
  @IsString()
  @Matches(/^\d{1,9}(\.\d{1,2})?$/)
  amount!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  description!: string;
}

export class ExpenseApprovalAnswer {
  @IsBoolean()
  approve!: boolean;
}
