import { Injectable, Module, UnauthorizedException } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthGuard, PassportModule, PassportStrategy } from '@nestjs/passport';
import { ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import { Strategy as BearerStrategy } from 'passport-http-bearer';
import {
  McpMayRequestInput,
  McpModule,
  McpContext,
  McpOperationContext,
  McpRequestStateMode,
  McpTool,
} from '../../../src/index';
import { ALL_ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import { connectClient, rawToolCall, resultText } from '../../utils/mcp';
import { askOnce, yesNoForm } from '../../utils/input-asks';

/** Users by bearer token, as a real strategy would look them up. */
const USERS: Record<string, { id: string; name: string }> = {
  'token-alice': { id: 'u-alice', name: 'Alice' },
  'token-bob': { id: 'u-bob', name: 'Bob' },
};
const ALICE = { Authorization: 'Bearer token-alice' };
const BOB = { Authorization: 'Bearer token-bob' };
const FORM = { elicitation: { form: {} } };
const THROTTLE_LIMIT = 5;

@Injectable()
class TokenStrategy extends PassportStrategy(BearerStrategy, 'bearer') {
  validate(token: string): { id: string; name: string } {
    const user = Object.hasOwn(USERS, token) ? USERS[token] : undefined;
    if (!user) throw new UnauthorizedException();
    return user;
  }
}

@Injectable()
class AccountTools {
  @McpTool({ name: 'whoami', description: 'The user passport authenticated' })
  whoami(@McpContext() ctx: McpOperationContext): string {
    return (ctx.http.request.user as { name: string }).name;
  }

  @McpTool({
    name: 'close_account',
    description: 'Closes the account after a confirmation',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  close(@McpContext() ctx: McpOperationContext): unknown {
    const user = (ctx.http.request.user as { name: string }).name;
    if (ctx.requestState.framework() === undefined) {
      return askOnce('confirm', yesNoForm('Close the account?'));
    }
    return `closed for ${user}`;
  }
}

@Module({
  imports: [
    McpModule.forRoot({ serverInfo: { name: 'ecosystem', version: '1.0.0' } }),
    PassportModule,
    ThrottlerModule.forRoot([{ ttl: 60_000, limit: THROTTLE_LIMIT }]),
  ],
  providers: [
    TokenStrategy,
    AccountTools,
    { provide: APP_GUARD, useClass: ThrottlerGuard },
    { provide: APP_GUARD, useClass: AuthGuard('bearer') },
  ],
})
class EcosystemAppModule {}

/**
 * The Nest ecosystem's own guards, unchanged, in front of MCP operations: `@nestjs/passport`'s
 * `AuthGuard` with a real passport strategy, and `@nestjs/throttler`. They work because
 * `switchToHttp()` is the real HTTP request in the 'mcp' context.
 */
describe.each(ALL_ADAPTERS)('Nest ecosystem guards over %s', (adapter) => {
  let server: TestServer;

  beforeEach(async () => {
    // A fresh app per test: the throttler counts per app.
    server = await startTestServer(adapter, { imports: [EcosystemAppModule] });
  });

  afterEach(async () => {
    await server.close();
  });

  it("passport's AuthGuard authenticates the bearer token and sets req.user", async () => {
    expect(resultText(await rawToolCall(server.url, 'whoami', {}, { headers: ALICE }))).toBe(
      'Alice',
    );
    const client = await connectClient(server.url, BOB);
    try {
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'Bob' }]);
    } finally {
      await client.close();
    }
  });

  it('refuses a missing or unknown token with -32001, whatever the arguments say', async () => {
    for (const headers of [{}, { Authorization: 'Bearer nope' }] as Record<string, string>[]) {
      const response = await rawToolCall(
        server.url,
        'whoami',
        { headers: { authorization: 'Bearer token-alice' } },
        { headers },
      );
      expect(response.body.error).toMatchObject({ code: -32001 });
    }
  });

  it("binds sealed state to the passport user: alice's state does not complete for bob", async () => {
    const first = await rawToolCall(
      server.url,
      'close_account',
      {},
      {
        headers: ALICE,
        capabilities: FORM,
      },
    );
    const state = first.body.result?.requestState;
    expect(typeof state).toBe('string');
    const answers = { confirm: { action: 'accept', content: { ok: true } } };
    const asBob = await rawToolCall(
      server.url,
      'close_account',
      {},
      {
        headers: BOB,
        capabilities: FORM,
        requestState: state,
        inputResponses: answers,
      },
    );
    expect(asBob.body.error).toMatchObject({ code: -32602, message: 'Invalid request state' });
    const asAlice = await rawToolCall(
      server.url,
      'close_account',
      {},
      {
        headers: ALICE,
        capabilities: FORM,
        requestState: state,
        inputResponses: answers,
      },
    );
    expect(resultText(asAlice)).toBe('closed for Alice');
  });

  it('the throttler counts MCP calls, sets its headers and stops the call over the limit', async () => {
    const answers = [];
    for (let i = 0; i <= THROTTLE_LIMIT; i++) {
      answers.push(await rawToolCall(server.url, 'whoami', {}, { headers: ALICE }));
    }
    const allowed = answers.slice(0, THROTTLE_LIMIT);
    for (const [index, response] of allowed.entries()) {
      expect(resultText(response)).toBe('Alice');
      expect(response.headers['x-ratelimit-limit']).toBe(String(THROTTLE_LIMIT));
      expect(response.headers['x-ratelimit-remaining']).toBe(String(THROTTLE_LIMIT - index - 1));
    }
    // The throttler's 429 is HTTP 429 with Retry-After and -32029, never a tool result.
    const over = answers[THROTTLE_LIMIT];
    expect(over.status).toBe(429);
    expect(over.body.result).toBeUndefined();
    const retryAfter = Number(over.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(over.body.error).toEqual({
      code: -32029,
      message: 'Too many requests',
      data: { retryAfterMs: retryAfter * 1000 },
    });
  });
});
