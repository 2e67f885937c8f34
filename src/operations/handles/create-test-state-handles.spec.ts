import { Injectable, Logger } from '@nestjs/common';
import { McpInputRequest } from '../../input/mcp-input-request';
import { McpInputRequiredResult } from '../../input/mcp-input-required.result';
import type { McpOperationContext } from '../../input/mcp-operation-context.interface';
import type { McpStateHandles } from './mcp-state-handles.service';
import { createTestOperationContext } from '../context/create-test-operation-context';
import { createTestStateHandles } from './create-test-state-handles';

/** A provider as an application writes it: the draft waits under a handle until approved. */
@Injectable()
class ApproveTool {
  readonly approved: string[] = [];
  constructor(private readonly handles: McpStateHandles) {}

  async approve(
    args: { amount: string },
    ctx: McpOperationContext,
  ): Promise<McpInputRequiredResult | string> {
    const flow = await this.handles.resume<{ amount: string }>(ctx);
    const answer = ctx.inputResponses.find('approval');
    if (!flow.data || answer?.kind !== 'elicitation') {
      return McpInputRequiredResult.builder()
        .inputRequest(
          'approval',
          McpInputRequest.elicitForm({
            message: 'Approve?',
            requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
          }),
        )
        .applicationState(await flow.save(flow.data ?? { amount: args.amount }))
        .build();
    }
    await flow.finish();
    this.approved.push(flow.data.amount);
    return `Approved ${flow.data.amount}`;
  }
}

const ACCEPT = {
  approval: { kind: 'elicitation' as const, action: 'accept' as const, content: {} },
};

describe('createTestStateHandles', () => {
  beforeEach(() => jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  it('drives a handle-based tool round by round without a server', async () => {
    const tool = new ApproveTool(createTestStateHandles());
    const first = await tool.approve(
      { amount: '5' },
      createTestOperationContext({ target: 'approve' }),
    );
    const handle = (first as McpInputRequiredResult).applicationState;
    expect(handle).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const retry = () =>
      tool.approve(
        { amount: 'ignored' },
        createTestOperationContext({
          target: 'approve',
          applicationState: handle,
          inputResponses: ACCEPT,
        }),
      );
    await expect(retry()).resolves.toBe('Approved 5');
    await expect(retry()).rejects.toMatchObject({ code: -32602, message: 'Invalid request state' });
    expect(tool.approved).toEqual(['5']);
  });

  it('binds handles to the caller, as the module does', async () => {
    const tool = new ApproveTool(createTestStateHandles());
    const alice = { id: 'alice' };
    const first = await tool.approve(
      { amount: '5' },
      createTestOperationContext({ target: 'approve', user: alice }),
    );
    const handle = (first as McpInputRequiredResult).applicationState;
    const as = (user: unknown) =>
      tool.approve(
        { amount: '5' },
        createTestOperationContext({
          target: 'approve',
          user,
          applicationState: handle,
          inputResponses: ACCEPT,
        }),
      );
    await expect(as({ id: 'eve' })).rejects.toMatchObject({ code: -32602 });
    await expect(as(alice)).resolves.toBe('Approved 5');
  });
});
