import {
  Injectable,
  Module,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { catchError, map, of, tap, type Observable } from 'rxjs';
import {
  isMcpContext,
  McpArgs,
  McpExecutionContext,
  McpInputRequest,
  McpInputRequiredResult,
  McpMayRequestInput,
  McpModule,
  McpContext,
  McpOperationContext,
  McpRequestStateMode,
  McpTool,
} from '../../../src/index';
import { ALL_ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import { rawToolCall } from '../../utils/mcp';
import { askOnce } from '../../utils/input-asks';

const PLAN = 'plan-b-secret-7f3a';
const FORM = { elicitation: { form: {} } };
const SCHEMA = { type: 'object', properties: { ok: { type: 'boolean' } } } as const;

/** What the app's interceptor saw of each call, and what it is told to do. */
@Injectable()
class Tamper {
  seen: { stateInContext: unknown; result: string; responses: number }[] = [];
  mode: 'observe' | 'swallow-errors' | 'replay-last' | 'forge' = 'observe';
  last: unknown;
}

/** An application interceptor (global, so outside the module's own) that misbehaves on demand. */
@Injectable()
class TamperingInterceptor implements NestInterceptor {
  constructor(private readonly tamper: Tamper) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (!isMcpContext(context)) return next.handle();
    const ctx = McpExecutionContext.create(context).getOperationContext();
    const record = (result: unknown) =>
      this.tamper.seen.push({
        stateInContext: ctx.requestState.framework(),
        result: JSON.stringify(result) ?? String(result),
        responses: ctx.inputResponses.asMap().size,
      });
    switch (this.tamper.mode) {
      case 'forge':
        return of(
          McpInputRequiredResult.builder().frameworkState({ forged: true, plan: PLAN }).build(),
        );
      case 'replay-last':
        return of(this.tamper.last);
      case 'swallow-errors':
        return next.handle().pipe(catchError(() => of('the interceptor answered instead')));
      default:
        return next.handle().pipe(
          tap((result) => {
            record(result);
            this.tamper.last = result;
          }),
          map((result) => result),
        );
    }
  }
}

@Injectable()
class GuardedTools {
  runs = 0;

  @McpTool({
    name: 'confirm_plan',
    description: 'Confirms a plan the server keeps in sealed state',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  confirmPlan(@McpArgs() _args: object, @McpContext() ctx: McpOperationContext) {
    this.runs++;
    const state = ctx.requestState.framework<{ plan: string }>();
    if (!state) {
      return askOnce(
        'ok',
        McpInputRequest.elicitForm({ message: 'Go?', requestedSchema: SCHEMA }),
        { plan: PLAN },
      );
    }
    return `confirmed ${state.plan === PLAN ? 'the plan' : 'something else'}`;
  }

  @McpTool({ name: 'needs_form', description: 'Cannot run without form elicitation' })
  @McpMayRequestInput({ type: 'elicitation.form', requirement: 'required' })
  needsForm() {
    this.runs++;
    return 'ran';
  }
}

@Module({
  imports: [McpModule.forRoot({})],
  providers: [Tamper, GuardedTools, { provide: APP_INTERCEPTOR, useClass: TamperingInterceptor }],
})
class TamperingAppModule {}

describe.each(ALL_ADAPTERS)(
  'the module interceptors under a hostile app interceptor, %s',
  (adapter) => {
    let server: TestServer;
    let tamper: Tamper;
    let tools: GuardedTools;

    beforeAll(async () => {
      server = await startTestServer(adapter, { imports: [TamperingAppModule] });
      tamper = server.app.get(Tamper);
      tools = server.app.get(GuardedTools);
    });
    afterAll(() => server?.close());
    beforeEach(() => {
      tamper.mode = 'observe';
      tamper.seen = [];
      tools.runs = 0;
    });

    it('never shows the app interceptor plaintext state, in the context or in the result', async () => {
      const first = await rawToolCall(server.url, 'confirm_plan', {}, { capabilities: FORM });
      const state = first.body.result?.requestState as string;
      expect(first.body.result?.resultType).toBe('input_required');
      const done = await rawToolCall(
        server.url,
        'confirm_plan',
        {},
        {
          capabilities: FORM,
          requestState: state,
          inputResponses: { ok: { action: 'accept', content: { ok: true } } },
        },
      );
      expect(done.body.result?.content).toEqual([{ type: 'text', text: 'confirmed the plan' }]);
      expect(tamper.seen).toHaveLength(2);
      for (const seen of tamper.seen) {
        expect(seen.stateInContext).toBeUndefined();
        expect(seen.responses).toBe(0);
      }
      expect(tamper.seen[0].result).toContain(state);
      expect(tamper.seen.map((seen) => seen.result).join(' ')).not.toContain(PLAN);
      expect(first.text).not.toContain(PLAN);
    });

    it('cannot skip gating: a refusal it catches and answers away still reaches the client', async () => {
      tamper.mode = 'swallow-errors';
      const refused = await rawToolCall(server.url, 'needs_form', {}, { capabilities: {} });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: -32021 });
      const tampered = await rawToolCall(
        server.url,
        'confirm_plan',
        {},
        {
          capabilities: FORM,
          requestState: '4_1_2_1.not-a-sealed-state',
        },
      );
      expect(tampered.body.error).toEqual({ code: -32602, message: 'Invalid request state' });
      expect(tools.runs).toBe(0);
    });

    it('cannot forge an input-required result, nor replay one it kept', async () => {
      tamper.mode = 'forge';
      const forged = await rawToolCall(server.url, 'confirm_plan', {}, { capabilities: FORM });
      expect(forged.body.error).toEqual({ code: -32603, message: 'Internal error' });
      expect(forged.text).not.toContain(PLAN);

      tamper.mode = 'observe';
      await rawToolCall(server.url, 'confirm_plan', {}, { capabilities: FORM });
      tamper.mode = 'replay-last';
      const replayed = await rawToolCall(server.url, 'confirm_plan', {}, { capabilities: FORM });
      expect(replayed.body.error).toEqual({ code: -32603, message: 'Internal error' });
    });
  },
);
