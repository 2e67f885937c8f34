import { Injectable } from '@nestjs/common';
import {
  McpArgs,
  McpInputRequest,
  McpInputRequiredResult,
  McpMayRequestInput,
  McpContext,
  McpRequestStateMode,
  McpStateHandles,
  McpTool,
} from '../../../src/index';
import { bearerToken } from '../demo-auth/bearer-token';
import { ApproveExpenseDto, ExpenseApprovalAnswer } from './approve-expense.dto';
import { ExpenseLedger } from './expense-ledger.service';

/** What waits server-side between the rounds; the client only ever holds a random handle. */
interface ExpenseDraft {
  amount: string;
  description: string;
  submittedBy: string;
  /** How many times the approval was asked (a retry without an answer asks again). */
  asked: number;
}

const approvalSchema = {
  type: 'object',
  properties: { approve: { type: 'boolean', title: 'Approve this expense?' } },
  required: ['approve'],
};

/**
 * `approve_expense`: keeps the expense draft under a rotating state handle (`McpStateHandles`),
 * asks for approval, and records the expense once. A replayed, expired or foreign handle is
 * refused with -32602 before anything is recorded.
 */
@Injectable()
export class ApproveExpenseTool {
  constructor(
    private readonly handles: McpStateHandles,
    private readonly ledger: ExpenseLedger,
  ) {}

  @McpTool({
    name: 'approve_expense',
    description: 'Submits an expense and records it once the user approves it',
    requestState: McpRequestStateMode.APPLICATION_PROTECTED,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  async approveExpense(
    @McpArgs() args: ApproveExpenseDto,
    @McpContext() ctx: McpContext,
  ): Promise<McpInputRequiredResult | string> {
    // Checked first: a malformed answer is refused (-32602) while the handle is still unspent.
    const answer = ctx.inputResponses.find('approval', ExpenseApprovalAnswer);
    // Then, before anything with an effect: on a retry this redeems (and rotates) the handle.
    const flow = await this.handles.resume<ExpenseDraft>(ctx);
    if (!flow.data || !answer) {
      const draft: ExpenseDraft = flow.data ?? {
        amount: args.amount,
        description: args.description,
        submittedBy: bearerToken(ctx.http.request.headers.authorization) ?? 'anonymous',
        asked: 0,
      };
      return McpInputRequiredResult.builder()
        .inputRequest(
          'approval',
          McpInputRequest.elicitForm({
            message: `Approve ${draft.amount} for "${draft.description}"?`,
            requestedSchema: approvalSchema,
          }),
        )
        .applicationState(await flow.save({ ...draft, asked: draft.asked + 1 }))
        .build();
    }
    await flow.finish();
    const { amount, description, submittedBy } = flow.data;
    if (answer.action !== 'accept' || answer.content?.approve !== true)
      return `Expense not approved: ${amount} for "${description}"`;
    const entry = this.ledger.record({ amount, description, approvedBy: submittedBy });
    return `Expense #${entry} approved: ${amount} for "${description}"`;
  }
}
