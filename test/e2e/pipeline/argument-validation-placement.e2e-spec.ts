import {
  ForbiddenException,
  Injectable,
  Module,
  UseGuards,
  UseInterceptors,
  type CallHandler,
  type CanActivate,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import type { Observable } from 'rxjs';
import { McpArgs, McpModule, McpTool } from '../../../src/index';
import { operationCallOf } from '../../../src/pipeline/operation-call';
import { recordInterceptorChains } from '../../utils/interceptor-chains';
import { ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import { rawToolCall, resultText } from '../../utils/mcp';

/*
 * Argument validation of an operation that declares no input or state sits after the app's guards
 * and interceptors and before the pipes. Without interceptors of the app's it runs as the last
 * guard, so such a call never enters Nest's interceptor chain (each link costs every call); with
 * one, it is the innermost link. Either way a caller the app's guard refuses learns nothing of the
 * arguments, and what the app's interceptor sees is the call as sent.
 */

const SCHEMA = {
  type: 'object' as const,
  properties: { text: { type: 'string' as const, maxLength: 5 } },
  required: ['text'],
  additionalProperties: false,
};

@Injectable()
class OnlyAlice implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string> }>();
    if (request.headers.authorization !== 'Bearer alice') throw new ForbiddenException();
    return true;
  }
}

/** Records the arguments of every call it sees, before anything validates them. */
@Injectable()
class SeenArguments implements NestInterceptor {
  static readonly seen: unknown[] = [];
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    SeenArguments.seen.push(operationCallOf(context.getArgs())?.args);
    return next.handle();
  }
}

@Injectable()
class EchoTools {
  @UseGuards(OnlyAlice)
  @McpTool({ name: 'guarded_echo', description: 'Echoes', inputSchema: SCHEMA })
  guardedEcho(@McpArgs() args: { text: string }): string {
    return args.text;
  }

  @UseInterceptors(SeenArguments)
  @McpTool({ name: 'watched_echo', description: 'Echoes', inputSchema: SCHEMA })
  watchedEcho(@McpArgs() args: { text: string }): string {
    return args.text;
  }
}

@Module({
  imports: [McpModule.forRoot({ allowEphemeralKey: true })],
  providers: [EchoTools, OnlyAlice, SeenArguments],
})
class PlacementApp {}

/** The interceptors Nest's consumer was given for each operation call, by class name. */
const chains = recordInterceptorChains();

const ALICE = { headers: { authorization: 'Bearer alice' } };

describe.each(ADAPTERS)(
  'argument validation of an operation without input or state, %s',
  (adapter) => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer(adapter, { imports: [PlacementApp] });
    });
    afterAll(() => server?.close());
    beforeEach(() => {
      chains.length = 0;
      SeenArguments.seen.length = 0;
    });

    it('runs after the app’s guards without entering Nest’s interceptor chain', async () => {
      const valid = await rawToolCall(server.url, 'guarded_echo', { text: 'hi' }, ALICE);
      expect(resultText(valid)).toBe('hi');
      const invalid = await rawToolCall(
        server.url,
        'guarded_echo',
        { text: 'far too long' },
        ALICE,
      );
      expect(invalid.body.error?.code).toBe(-32602);
      expect(JSON.stringify(invalid.body.error?.data)).toContain('text');
      // The refused call never reached Nest's interceptor consumer; the valid one found no link.
      expect(chains).toEqual([[]]);
    });

    it('answers a caller the guard refuses with the guard’s refusal, whatever the arguments', async () => {
      const refused = await rawToolCall(server.url, 'guarded_echo', { text: 'far too long' });
      const wellFormed = await rawToolCall(server.url, 'guarded_echo', { text: 'hi' });
      // Byte for byte what a well-formed call of the refused caller gets (a tool it may not call
      // answers as an unknown one): nothing of the validation shows.
      expect(refused.body.error).toBeDefined();
      expect(refused.body.error).toEqual(wellFormed.body.error);
      expect(JSON.stringify(refused.body.error)).not.toContain('errors');
      expect(refused.text).not.toContain('maxLength');
    });

    it('is the innermost link when the app intercepts, which sees the call as sent', async () => {
      const invalid = await rawToolCall(server.url, 'watched_echo', { text: 'far too long' });
      expect(invalid.body.error?.code).toBe(-32602);
      expect(SeenArguments.seen).toEqual([{ text: 'far too long' }]);
      expect(chains).toEqual([['SeenArguments', 'ArgumentsValidationInterceptor']]);
    });
  },
);
