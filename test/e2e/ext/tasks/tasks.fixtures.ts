import { Injectable, Module } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import {
  McpArgs,
  McpInputRequest,
  McpInputRequiredResult,
  McpMayRequestInput,
  McpModule,
  McpContext,
  McpOperationContext,
  McpRequestStateMode,
  McpTool,
  type McpModuleOptions,
} from '../../../../src/index';

/** What the task tools saw, for the tests to assert on. */
export class TaskProbe {
  aborted: string[] = [];
  /** Runs of `approve_payment` that did the first phase's work. */
  firstPhaseRuns = 0;
  runs = 0;
  release: (() => void) | undefined;
  releaseGreeting: (() => void) | undefined;
}

function waitForAbort(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

@Injectable()
export class TaskTools {
  constructor(private readonly probe: TaskProbe) {}

  @McpTool({ description: 'Runs until cancelled', taskSupport: 'required' })
  async wait_for_cancel(@McpContext() ctx: McpOperationContext): Promise<string> {
    await waitForAbort(ctx.signal);
    this.probe.aborted.push(ctx.task?.id ?? '?');
    return 'stopped';
  }

  @McpTool({
    description: 'Reports progress, then waits to be released',
    taskSupport: 'optional',
  })
  async progress_job(@McpContext() ctx: McpOperationContext): Promise<string> {
    await ctx.progress.report(1, 4, 'loaded 1 of 4 files');
    await new Promise<void>((resolve) => (this.probe.release = resolve));
    return 'all files loaded';
  }

  @McpTool({
    description: 'Prepares a payment, asks for approval, then pays',
    taskSupport: 'optional',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
    inputSchema: {
      type: 'object',
      properties: { amount: { type: 'string' } },
      required: ['amount'],
    },
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  approve_payment(
    @McpArgs() { amount }: { amount: string },
    @McpContext() ctx: McpOperationContext,
  ): McpInputRequiredResult | string {
    this.probe.runs++;
    const state = ctx.requestState.framework<{ reference: string }>();
    if (!state) {
      this.probe.firstPhaseRuns++;
      return McpInputRequiredResult.builder()
        .inputRequest(
          'approve',
          McpInputRequest.elicitForm({
            message: `Pay ${amount}?`,
            requestedSchema: {
              type: 'object',
              properties: { ok: { type: 'boolean' } },
              required: ['ok'],
            },
          }),
        )
        .inputRequest(
          'note',
          McpInputRequest.elicitForm({
            message: 'A note for the payee?',
            requestedSchema: { type: 'object', properties: { text: { type: 'string' } } },
          }),
        )
        .frameworkState({ reference: `ref-${randomBytes(3).toString('hex')}` })
        .build();
    }
    const approve = ctx.inputResponses.find('approve');
    const note = ctx.inputResponses.find('note');
    const ok = approve?.kind === 'elicitation' && approve.content?.ok === true;
    const text = note?.kind === 'elicitation' ? String(note.content?.text ?? '') : '';
    return ok ? `Paid ${amount} (${state.reference}) with note "${text}"` : 'Not paid';
  }

  @McpTool({
    description: 'Asks for a name in a normal round, then becomes a task',
    taskSupport: 'required',
    taskCreation: 'deferred',
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  async greet_later(@McpContext() ctx: McpOperationContext) {
    const answer = ctx.inputResponses.find('who');
    if (answer?.kind !== 'elicitation')
      return McpInputRequiredResult.withInputRequest(
        'who',
        McpInputRequest.elicitForm({
          message: 'Who?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
        }),
      );
    await ctx.task?.start();
    await ctx.progress.report(1, 2, 'greeting prepared');
    await new Promise<void>((resolve) => (this.probe.releaseGreeting = resolve));
    return `Hello, ${String(answer.content?.name)} (task ${ctx.task?.id})`;
  }

  @McpTool({ description: 'Asks for a tip, then says it back as written', taskSupport: 'required' })
  @McpMayRequestInput({ type: 'elicitation.form' })
  tip_as_written(@McpContext() ctx: McpOperationContext): McpInputRequiredResult | string {
    const tip = ctx.inputResponses.find('tip');
    if (tip?.kind !== 'elicitation' || tip.action !== 'accept')
      return McpInputRequiredResult.withInputRequest(
        'tip',
        McpInputRequest.elicitForm({
          message: 'Tip, and how many?',
          requestedSchema: {
            type: 'object',
            properties: { amount: { type: 'number' }, count: { type: 'integer' } },
            required: ['amount', 'count'],
          },
        }),
      );
    return `tip ${String(tip.content?.amount)} x${String(tip.content?.count)}`;
  }

  @McpTool({
    description: 'Counts to n, a step every 30 ms, reporting progress',
    taskSupport: 'optional',
    inputSchema: { type: 'object', properties: { n: { type: 'integer', maximum: 100 } } },
  })
  async count_to(
    @McpArgs() { n }: { n: number },
    @McpContext() ctx: McpOperationContext,
  ): Promise<string> {
    for (let step = 1; step <= n; step++) {
      await new Promise((resolve) => setTimeout(resolve, 30));
      await ctx.progress.report(step, n);
    }
    return `counted to ${n}`;
  }

  @McpTool({ description: 'Answers at once', taskSupport: 'optional', taskTtlMs: 300 })
  short_lived(): string {
    return 'done';
  }

  @McpTool({ description: 'Returns a large result', taskSupport: 'optional' })
  large_result(): string {
    return 'x'.repeat(5_000);
  }
}

/** The partition is the `x-user` header: enough to tell two callers apart. */
const headerPartitions = {
  resolve: (ctx: McpOperationContext) => String(ctx.http.request.headers['x-user'] ?? 'anonymous'),
};

/** An app serving task tools; `options` adds module options. */
export function tasksApp(options: Partial<McpModuleOptions> = {}) {
  @Module({
    imports: [
      McpModule.forRoot({
        serverInfo: { name: 'tasks-e2e', version: '1.0.0' },
        identity: { partitionResolver: headerPartitions },
        ...options,
        tasks: { pollIntervalMs: 50, maxResultBytes: 4_096, ...options.tasks },
      }),
    ],
    providers: [TaskProbe, TaskTools],
  })
  class TasksAppModule {}
  return TasksAppModule;
}

/**
 * The tasks/* methods a caller sends about one task, each with its parameters besides the task id
 * (the update approves `approve_payment`).
 */
export const TASK_METHODS = [
  ['tasks/get', {}],
  ['tasks/update', { inputResponses: { approve: { action: 'accept', content: { ok: true } } } }],
  ['tasks/cancel', {}],
] as const;
