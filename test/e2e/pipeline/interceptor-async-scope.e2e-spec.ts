import { AsyncLocalStorage } from 'node:async_hooks';
import {
  Injectable,
  Module,
  UseInterceptors,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { Observable } from 'rxjs';
import {
  McpContext,
  McpInputRequiredResult,
  McpModule,
  McpRequestStateMode,
  McpTool,
  type McpOperationContext,
} from '../../../src/index';
import { nestMajorVersion } from '../../../src/kit/nest-internals';
import { ScopedInterceptorsConsumer } from '../../../src/kit/scoped-interceptors-consumer';
import { ADAPTERS, startTestServer } from '../../utils/bootstrap';
import { rawToolCall, resultText, stateOf } from '../../utils/mcp';
import { askOnce, yesNoForm } from '../../utils/input-asks';
import { serverForSuite } from '../../utils/suite-server';

/*
 * Nest runs each link of an interceptor chain in the async context it was made in, so what an
 * interceptor puts in an AsyncLocalStorage around `next.handle()` is what the links after it and
 * the method see. On Nest 11 the module runs operations' chains with its own subclass of Nest's
 * consumer (as Nest 12 does it: no `AsyncResource.bind`, whose accessor made V8 promote every call
 * to the old generation); the context each link sees must be the same as with Nest's.
 */

const tenant = new AsyncLocalStorage<string>();

/** Runs the rest of the chain with the caller's tenant in an AsyncLocalStorage. */
@Injectable()
class TenantScope implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string> }>();
    const name = request.headers['x-tenant'] ?? 'none';
    return new Observable((subscriber) =>
      tenant.run(name, () => next.handle().subscribe(subscriber)),
    );
  }
}

/** Reads the tenant after an `await`, in a link inside the one that set it. */
@Injectable()
class TenantEcho implements NestInterceptor {
  static readonly seen: (string | undefined)[] = [];
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    TenantEcho.seen.push(tenant.getStore());
    return next.handle();
  }
}

@Injectable()
class TenantTools {
  @UseInterceptors(TenantScope, TenantEcho)
  @McpTool({
    name: 'whose_tenant',
    description: 'Names the tenant the chain put in scope, after a confirmation',
    mayRequestInput: [{ type: 'elicitation.form' }],
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  async whoseTenant(
    @McpContext() ctx: McpOperationContext,
  ): Promise<McpInputRequiredResult | string> {
    await new Promise((resolve) => setImmediate(resolve));
    if (ctx.inputResponses.find('confirm')) return `tenant ${tenant.getStore() ?? 'lost'}`;
    return askOnce('confirm', yesNoForm(`Act for ${tenant.getStore() ?? 'lost'}?`, 'confirm'));
  }
}

@Module({
  imports: [McpModule.forRoot({ allowEphemeralKey: true })],
  providers: [TenantTools, TenantScope, TenantEcho],
})
class TenantApp {}

const FORM = { elicitation: { form: {} } };

describe.each(ADAPTERS)('an interceptor’s async context through the chain, %s', (adapter) => {
  const server = serverForSuite(() => startTestServer(adapter, { imports: [TenantApp] }));

  it('reaches the inner links and the method, on both rounds, for concurrent callers', async () => {
    TenantEcho.seen.length = 0;
    const consumed = jest.spyOn(ScopedInterceptorsConsumer.prototype, 'intercept');
    try {
      const flows = ['acme', 'globex', 'initech'].map(async (name) => {
        const headers = { 'x-tenant': name };
        const first = await rawToolCall(
          server.url,
          'whose_tenant',
          {},
          { capabilities: FORM, headers },
        );
        expect(first.body.result?.resultType).toBe('input_required');
        expect(JSON.stringify(first.body.result?.inputRequests)).toContain(`Act for ${name}?`);
        const second = await rawToolCall(
          server.url,
          'whose_tenant',
          {},
          {
            capabilities: FORM,
            headers,
            requestState: stateOf(first),
            inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
          },
        );
        expect(resultText(second)).toBe(`tenant ${name}`);
      });
      await Promise.all(flows);
      expect([...TenantEcho.seen].sort()).toEqual([
        'acme',
        'acme',
        'globex',
        'globex',
        'initech',
        'initech',
      ]);
      // Nest 11's own consumer binds each link with AsyncResource.bind; operations run with the
      // module's instead. Nest 12's is already without it, and operations keep it.
      expect(consumed.mock.calls.length > 0).toBe(nestMajorVersion() < 12);
    } finally {
      consumed.mockRestore();
    }
  });
});
