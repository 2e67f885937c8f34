import { IsString } from 'class-validator';
import { McpInputRequest } from '../../input/mcp-input-request';
import { McpInputRequiredResult } from '../../input/mcp-input-required.result';
import type { McpOperationContext } from '../../input/mcp-operation-context.interface';
import { createTestOperationContext } from './create-test-operation-context';

/** A handler as users write it: ask first, act on the confirmed answer. */
async function deleteFile(path: string, ctx: McpOperationContext): Promise<unknown> {
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

describe('createTestOperationContext', () => {
  it('drives the first round of a handler and records its progress', async () => {
    const ctx = createTestOperationContext({ target: 'deleteFile' });
    const result = await deleteFile('a.txt', ctx);
    expect(result).toBeInstanceOf(McpInputRequiredResult);
    expect((result as McpInputRequiredResult).frameworkState).toEqual({ asked: true });
    expect(ctx.progressReports).toEqual([{ progress: 0, total: 1, message: 'asking' }]);
  });

  it('drives the second round from state and answers, and records log entries', async () => {
    const ctx = createTestOperationContext({
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
    const ctx = createTestOperationContext({
      user: { id: 'alice' },
      headers: { authorization: 'Bearer alice' },
    });
    expect(ctx.http.request.user).toEqual({ id: 'alice' });
    expect(ctx.http.request.headers.authorization).toBe('Bearer alice');
    expect(() => ctx.sdk).toThrow(/not available/);
  });

  describe('replay-style asks', () => {
    class NameAnswer {
      @IsString() name!: string;
    }
    const nameForm = {
      message: 'Name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    };
    async function signup(ctx: McpOperationContext): Promise<string> {
      const name = await ctx.elicit(nameForm, NameAnswer);
      const roots = await ctx.listRoots();
      return `${name.content?.name ?? '-'} in ${roots.roots.length} root(s)`;
    }

    it('answers the Nth ask with the Nth scripted answer and records every ask', async () => {
      const ctx = createTestOperationContext({
        replayAnswers: [
          { kind: 'elicitation', action: 'accept', content: { name: 'Ada' } },
          { kind: 'roots', roots: [{ uri: 'file:///a' }] },
        ],
      });
      await expect(signup(ctx)).resolves.toBe('Ada in 1 root(s)');
      expect(ctx.asked.map((request) => request.method)).toEqual([
        'elicitation/create',
        'roots/list',
      ]);
    });

    it('rejects an ask past the scripted answers, as an unanswered ask ends a round', async () => {
      const ctx = createTestOperationContext({
        replayAnswers: [{ kind: 'elicitation', action: 'accept', content: { name: 'Ada' } }],
      });
      await expect(signup(ctx)).rejects.toThrow('This round ends here');
      expect(ctx.asked).toHaveLength(2);
    });

    it('validates a typed answer like a live round (-32602)', async () => {
      const ctx = createTestOperationContext({
        replayAnswers: [{ kind: 'elicitation', action: 'accept', content: { name: true } }],
      });
      await expect(signup(ctx)).rejects.toMatchObject({ code: -32602 });
    });
  });
});
