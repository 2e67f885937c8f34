import { Injectable, Module } from '@nestjs/common';
import { McpNotifier, McpContext, McpOperationContext, McpTool } from '../../../src/index';

/** Holds the `held` tool until the test releases it, and tells the test when a call got there. */
@Injectable()
export class CallGate {
  private enter!: () => void;
  private open!: () => void;
  /** Settles once a `held` call is running. */
  readonly entered = new Promise<void>((resolve) => (this.enter = resolve));
  private readonly opened = new Promise<void>((resolve) => (this.open = resolve));

  async pass(): Promise<void> {
    this.enter();
    await this.opened;
  }

  release(): void {
    this.open();
  }
}

/** Tools that log at two levels, announce list changes through {@link McpNotifier}, or wait. */
@Injectable()
export class NotifyingTools {
  constructor(
    private readonly notifier: McpNotifier,
    private readonly gate: CallGate,
  ) {}

  @McpTool({ name: 'chatty', description: 'Logs one debug and one info line, then answers' })
  async chatty(@McpContext() ctx: McpOperationContext): Promise<string> {
    await ctx.logger.log('debug', { line: 'debug detail' }, 'chatty');
    await ctx.logger.log('info', { line: 'info summary' }, 'chatty');
    return 'talked';
  }

  @McpTool({ name: 'enable_beta', description: 'Makes the tool list change' })
  enableBeta(): string {
    this.notifier.toolsChanged();
    return 'beta enabled';
  }

  @McpTool({ name: 'held', description: 'Answers once the test releases it' })
  async held(): Promise<string> {
    await this.gate.pass();
    return 'finished';
  }
}

/** The operations of the notifications e2e suite. */
@Module({ providers: [NotifyingTools, CallGate] })
export class NotificationsModule {}
