import { Injectable, Module } from '@nestjs/common';
import {
  McpArgs,
  McpInputRequiredResult,
  McpMayRequestInput,
  McpContext,
  McpOperationContext,
  McpRequestStateMode,
  McpTool,
} from '../../../../src/index';
import { askOnce, yesNoForm } from '../../../utils/input-asks';

/** Points a test opens, by name, to let a task tool go on: the test sets the pace of each step. */
@Injectable()
export class StepGates {
  private readonly gates = new Map<string, { opened: Promise<void>; open: () => void }>();

  private gate(name: string) {
    let gate = this.gates.get(name);
    if (!gate) {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      gate = { opened, open };
      this.gates.set(name, gate);
    }
    return gate;
  }

  /** Resolves once `open(name)` has been called, before or after, or `signal` aborts. */
  passed(name: string, signal: AbortSignal): Promise<void> {
    const aborted = new Promise<void>((resolve) =>
      signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    return Promise.race([this.gate(name).opened, aborted]);
  }

  open(name: string): void {
    this.gate(name).open();
  }
}

@Injectable()
export class GatedTaskTools {
  constructor(private readonly gates: StepGates) {}

  @McpTool({
    description: 'Asks for approval once the "<key>:ask" gate opens; finishes at "<key>:finish"',
    taskSupport: 'required',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
    inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  async gated_approval(
    @McpArgs() { key }: { key: string },
    @McpContext() ctx: McpOperationContext,
  ): Promise<McpInputRequiredResult | string> {
    if (!ctx.requestState.framework<{ asked: true }>()) {
      await this.gates.passed(`${key}:ask`, ctx.signal);
      return askOnce('approve', yesNoForm(`Approve ${key}?`));
    }
    await this.gates.passed(`${key}:finish`, ctx.signal);
    const answer = ctx.inputResponses.find('approve');
    return answer?.kind === 'elicitation' && answer.content?.ok === true ? 'approved' : 'refused';
  }
}

/** The gated tool, to import next to `tasksApp(...)`. */
@Module({ providers: [StepGates, GatedTaskTools] })
export class GatedTaskToolsModule {}
