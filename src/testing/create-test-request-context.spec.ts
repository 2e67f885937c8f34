import { McpInputRequest } from '../input/mcp-input-request';
import { McpInputRequiredResult } from '../input/mcp-input-required.result';
import type { McpRequestContext } from '../interfaces/mcp-request-context.interface';
import { createTestRequestContext } from './create-test-request-context';

/** A handler as users write it: ask first, act on the confirmed answer. */
async function deleteFile(path: string, ctx: McpRequestContext): Promise<unknown> {
  const asked = ctx.requestState.framework<{ asked: boolean }>()?.asked === true;
  const answer = asked ? ctx.inputResponses.find('confirm') : undefined;
  if (!answer) {
    await ctx.progress.report(0, 1, 'asking');
    return McpInputRequiredResult.builder()
      .inputRequest(
        'confirm',
        McpInputRequest.elicitForm({
          message: `Delete ${path}?`,
          requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } } },
        }),
      )
      .frameworkState({ asked: true })
      .build();
  }
  await ctx.logger.log('info', { deleted: path });
  return answer.kind === 'elicitation' && answer.content?.confirm === true ? 'Deleted' : 'Kept';
}

describe('createTestRequestContext', () => {
  it('drives the first round of a handler and records its progress', async () => {
    const ctx = createTestRequestContext({ target: 'deleteFile' });
    const result = await deleteFile('a.txt', ctx);
    expect(result).toBeInstanceOf(McpInputRequiredResult);
    expect((result as McpInputRequiredResult).frameworkState).toEqual({ asked: true });
    expect(ctx.progressReports).toEqual([{ progress: 0, total: 1, message: 'asking' }]);
  });

  it('drives the second round from state and answers, and records log entries', async () => {
    const ctx = createTestRequestContext({
      frameworkState: { asked: true },
      inputResponses: {
        confirm: { kind: 'elicitation', action: 'accept', content: { confirm: true } },
      },
    });
    await expect(deleteFile('a.txt', ctx)).resolves.toBe('Deleted');
    expect(ctx.logEntries).toEqual([
      { level: 'info', data: { deleted: 'a.txt' }, logger: undefined },
    ]);
  });

  it('exposes the principal and headers the way guards set them', () => {
    const ctx = createTestRequestContext({
      user: { id: 'alice' },
      headers: { authorization: 'Bearer alice' },
    });
    expect(ctx.http.request.user).toEqual({ id: 'alice' });
    expect(ctx.http.request.headers.authorization).toBe('Bearer alice');
    expect(() => ctx.sdk).toThrow(/not available/);
  });
});
