import { Injectable } from '@nestjs/common';
import {
  McpArgs,
  McpInputRequest,
  McpInputRequiredResult,
  McpMayRequestInput,
  McpContext,
  McpOperationContext,
  McpRequestStateMode,
  McpTool,
} from '../../../src/index';
import { sleep } from './sleep';

interface ExportArgs {
  dataset: string;
  rows: number;
}

/** What the export carries across the confirmation: the rows already written. */
interface ExportState {
  exported: number;
  personal: number;
}

const BATCH = 250;

/**
 * A realistic task: exports a dataset in batches, reporting progress; halfway it finds personal
 * data and asks whether to include it. The answer resumes the task, which re-runs this method:
 * the sealed state says how far the export got, so nothing is exported twice.
 */
@Injectable()
export class ExportReportTool {
  @McpTool({
    name: 'export_report',
    description: 'Exports a dataset to a CSV report; asks before including personal data',
    taskSupport: 'optional',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
    inputSchema: {
      type: 'object',
      properties: {
        dataset: { type: 'string', minLength: 1, maxLength: 64 },
        rows: { type: 'integer', minimum: 1, maximum: 100000 },
      },
      required: ['dataset', 'rows'],
    },
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  async export(
    @McpArgs() { dataset, rows }: ExportArgs,
    @McpContext() ctx: McpContext,
  ): Promise<McpInputRequiredResult | string> {
    const state = ctx.requestState.framework<ExportState>();
    const half = Math.ceil(rows / 2);
    if (!state) {
      await this.write(ctx, 0, half, rows);
      return McpInputRequiredResult.builder()
        .inputRequest(
          'include_personal',
          McpInputRequest.elicitForm({
            message: `The ${dataset} export contains ${Math.ceil(half / 10)} rows with personal data. Include them?`,
            requestedSchema: {
              type: 'object',
              properties: { include: { type: 'boolean', title: 'Include personal data' } },
              required: ['include'],
            },
          }),
        )
        .frameworkState<ExportState>({ exported: half, personal: Math.ceil(half / 10) })
        .build();
    }
    const answer = ctx.inputResponses.find('include_personal');
    const include =
      answer?.kind === 'elicitation' &&
      answer.action === 'accept' &&
      answer.content?.include === true;
    await this.write(ctx, state.exported, rows, rows);
    const kept = include ? rows : rows - state.personal;
    return `Exported ${kept} of ${rows} rows of ${dataset} to reports/${dataset}.csv${include ? '' : ' (personal data left out)'}`;
  }

  private async write(ctx: McpOperationContext, from: number, to: number, total: number) {
    for (let row = from; row < to; row += BATCH) {
      await sleep(20, ctx.signal);
      await ctx.progress.report(
        Math.min(row + BATCH, to),
        total,
        `Exported ${Math.min(row + BATCH, to)}/${total} rows`,
      );
    }
  }
}
