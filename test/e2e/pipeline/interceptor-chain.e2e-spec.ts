import {
  Injectable,
  Module,
  UseInterceptors,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import type { Observable } from 'rxjs';
import {
  McpContext,
  McpInputRequiredResult,
  McpModule,
  McpRequestStateMode,
  McpTool,
  type McpOperationContext,
} from '../../../src/index';
import { MCP_TASKS_EXTENSION } from '../../../src/entry/tasks';
import { recordInterceptorChains } from '../../utils/interceptor-chains';
import { startTestServer } from '../../utils/bootstrap';
import { rawToolCall, stateOf } from '../../utils/mcp';
import { connectV2Legacy, SampleUser, textOf } from '../../utils/session-clients';
import { until } from '../../utils/wait';
import { askOnce, yesNoForm } from '../../utils/input-asks';
import { serverForSuite } from '../../utils/suite-server';

/*
 * The card: Nest interceptors do capability gating and state protection, in Nest's own chain. What
 * Nest's InterceptorsConsumer is given for each call of a FRAMEWORK_PROTECTED tool that declares a
 * form — both rounds, on the fast path, the SDK path, a task step and a 2025-era session — is the
 * app's global interceptor, the class interceptor, then the module's CapabilityGatingInterceptor
 * and StateProtectionInterceptor, innermost.
 */

@Injectable()
class AppWideInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle();
  }
}

@Injectable()
class ClassInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle();
  }
}

@UseInterceptors(ClassInterceptor)
@Injectable()
class DeleteTools {
  @McpTool({
    name: 'delete_file',
    description: 'Deletes after a confirmation',
    mayRequestInput: [{ type: 'elicitation.form' }],
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
    taskSupport: 'optional',
  })
  deleteFile(@McpContext() ctx: McpOperationContext): McpInputRequiredResult | string {
    const answer = ctx.inputResponses.find('confirm');
    if (answer?.kind === 'elicitation') return answer.action === 'accept' ? 'deleted' : 'kept';
    return askOnce('confirm', yesNoForm('Delete notes.txt?', 'confirm'));
  }
}

function appWith(fastPath: boolean) {
  @Module({
    imports: [McpModule.forRoot({ allowEphemeralKey: true, http: { fastPath } })],
    providers: [
      DeleteTools,
      ClassInterceptor,
      { provide: APP_INTERCEPTOR, useClass: AppWideInterceptor },
    ],
  })
  class ChainApp {}
  return ChainApp;
}

/** The interceptors Nest's consumer ran for each operation call, by class name, in order. */
const chains = recordInterceptorChains();

const EXPECTED = [
  'AppWideInterceptor',
  'ClassInterceptor',
  'CapabilityGatingInterceptor',
  'StateProtectionInterceptor',
];
const FORM = { elicitation: { form: {} } };

describe.each([
  ['the fast path', true],
  ['the SDK path', false],
])('the library interceptors in Nest’s own chain, on %s', (_path, fastPath) => {
  const server = serverForSuite(() => startTestServer('express', { imports: [appWith(fastPath)] }));

  it('run innermost, after the app’s global and class interceptors, on both rounds', async () => {
    chains.length = 0;
    const first = await rawToolCall(server.url, 'delete_file', {}, { capabilities: FORM });
    expect(first.body.result?.resultType).toBe('input_required');
    const second = await rawToolCall(
      server.url,
      'delete_file',
      {},
      {
        capabilities: FORM,
        requestState: stateOf(first),
        inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
      },
    );
    expect(second.body.result?.content).toEqual([{ type: 'text', text: 'deleted' }]);
    expect(chains).toEqual([EXPECTED, EXPECTED]);
  });
});

describe('the library interceptors in Nest’s own chain, for a task step and a 2025-era session', () => {
  const server = serverForSuite(() => startTestServer('express', { imports: [appWith(true)] }));

  it('run innermost for the step of a task', async () => {
    chains.length = 0;
    const created = await rawToolCall(
      server.url,
      'delete_file',
      {},
      { capabilities: { ...FORM, extensions: { [MCP_TASKS_EXTENSION]: {} } } },
    );
    expect(created.body.result?.resultType).toBe('task');
    await until(() => chains.length > 0, 'the task step to run');
    expect(chains[0]).toEqual(EXPECTED);
  });

  it('run innermost on every round of a 2025-era call', async () => {
    chains.length = 0;
    const client = await connectV2Legacy(server.url, new SampleUser());
    try {
      expect(textOf(await client.callTool({ name: 'delete_file', arguments: {} }))).toBe('deleted');
    } finally {
      await client.close();
    }
    expect(chains).toEqual([EXPECTED, EXPECTED]);
  });
});
