import { Injectable } from '@nestjs/common';
import {
  McpInputRequirement,
  McpMayRequestInput,
  McpNotifier,
  McpContext,
  McpTool,
} from '../../../src/index';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Lifecycle probes of the `server-stateless` scenario: capability gating, streams, subscriptions. */
@Injectable()
export class DiagnosticFixtures {
  constructor(private readonly notifier: McpNotifier) {}

  @McpTool({
    name: 'test_missing_capability',
    description: 'Requires the sampling client capability',
  })
  // REQUIRED: checked before the method runs, so a client without sampling gets one -32021.
  @McpMayRequestInput({ type: 'sampling', requirement: McpInputRequirement.REQUIRED })
  missingCapability(): string {
    return 'Client declared sampling';
  }

  @McpTool({
    name: 'test_streaming_elicitation',
    description: 'Answers on the request stream without sending server-to-client requests',
  })
  streamingElicitation(): string {
    return 'Streaming probe complete: no server-to-client request was sent';
  }

  @McpTool({
    name: 'test_logging_tool',
    description: 'Logs at info level when the request asked for a log level',
  })
  async logging(@McpContext() ctx: McpContext): Promise<string> {
    await ctx.logger.log('info', 'Logging tool started', 'test_logging_tool');
    await sleep(20);
    await ctx.logger.log('info', 'Logging tool finished', 'test_logging_tool');
    return 'Logging tool complete';
  }

  @McpTool({
    name: 'test_trigger_tool_change',
    description: 'Announces a tools list change to listeners',
  })
  triggerToolChange(): string {
    this.notifier.toolsChanged();
    return 'Mutation triggered';
  }

  @McpTool({
    name: 'test_trigger_prompt_change',
    description: 'Announces a prompts list change to listeners',
  })
  triggerPromptChange(): string {
    this.notifier.promptsChanged();
    return 'Mutation triggered';
  }
}
