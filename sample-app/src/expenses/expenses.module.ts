import { Module } from '@nestjs/common';
import { ApproveExpenseTool } from './approve-expense.tool';
import { ExpenseLedger } from './expense-ledger.service';

@Module({ providers: [ApproveExpenseTool, ExpenseLedger] })
export class ExpensesModule {}
