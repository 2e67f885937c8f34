import {
  ForbiddenException,
  Injectable,
  Module,
  UnauthorizedException,
  UseGuards,
  type CanActivate,
  type DynamicModule,
  type ExecutionContext,
  type ModuleMetadata,
  type Type,
} from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import {
  McpContext,
  McpInputRequiredResult,
  McpMayRequestInput,
  McpModule,
  type McpModuleOptions,
  McpOperationContext,
  McpPrompt,
  McpRequestStateMode,
  McpResource,
  McpTool,
} from '../../../src/index';
import { startTestServer, type TestServer } from '../../utils/bootstrap';
import { rawToolCall, stateOf, type RawRoundResponse } from '../../utils/mcp';
import { askOnce, yesNoForm } from '../../utils/input-asks';
import { guardedRequest } from '../../fixtures/guarded-request';
import { type AuthorizationServer } from '../../utils/authorization-server';

/** Who a request says it is: `x-user`, `x-roles` and `x-scope` headers (a stand-in for a token). */
interface HeaderUser {
  readonly id: string;
  readonly roles: string[];
  readonly scope: string;
}

/**
 * A global authentication guard in the passport style: `Authorization: Bearer bad` is refused
 * with `UnauthorizedException('token expired')`; `x-user` puts a user on `req.user`; nobody else
 * passes as anonymous.
 */
@Injectable()
export class HeaderAuthGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = guardedRequest<HeaderUser>(context);
    if (request.headers.authorization === 'Bearer bad')
      throw new UnauthorizedException('token expired');
    const id = request.headers['x-user'];
    if (id !== undefined)
      request.user = {
        id,
        roles: (request.headers['x-roles'] ?? '').split(',').filter(Boolean),
        scope: request.headers['x-scope'] ?? '',
      };
    return true;
  }
}

/** Admins only: nobody signed in is challenged (401), a signed-in non-admin refused. */
@Injectable()
export class AdminGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const user = guardedRequest<HeaderUser>(context).user;
    if (!user) throw new UnauthorizedException('sign in first');
    return user.roles.includes('admin');
  }
}

/** A guard with a bug. */
@Injectable()
export class BrokenGuard implements CanActivate {
  canActivate(): boolean {
    throw new Error('the guard has a bug');
  }
}

/** What the access fixtures did, for side-effect assertions. */
@Injectable()
export class Payments {
  readonly made: string[] = [];
}

@Injectable()
export class AccessOperations {
  constructor(private readonly payments: Payments) {}

  @McpTool({ name: 'public_echo', description: 'Anyone may call it' })
  publicEcho(): string {
    return 'echo';
  }

  @McpTool({ name: 'admin_report', description: 'Admins only' })
  @UseGuards(AdminGuard)
  adminReport(): string {
    return 'report';
  }

  @McpTool({
    name: 'pay',
    description: 'Pays after a confirmation; needs payments:write',
    scopes: ['payments:write'],
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  pay(@McpContext() ctx: McpOperationContext): McpInputRequiredResult | string {
    const answer = ctx.inputResponses.find('confirm');
    if (answer?.kind === 'elicitation' && answer.action === 'accept') {
      this.payments.made.push('paid');
      return 'paid';
    }
    return askOnce('confirm', yesNoForm('Pay?'), { asked: 'confirm' });
  }

  @McpTool({ name: 'broken_guard', description: 'Its guard throws' })
  @UseGuards(BrokenGuard)
  brokenGuard(): string {
    return 'never';
  }

  @McpTool({ name: 'forbids_itself', description: 'Its method throws ForbiddenException' })
  forbidsItself(): never {
    throw new ForbiddenException('no');
  }

  @McpPrompt({ name: 'admin_prompt', description: 'Admins only' })
  @UseGuards(AdminGuard)
  adminPrompt(): string {
    return 'prompt';
  }

  @McpPrompt({ name: 'public_prompt', description: 'Anyone' })
  publicPrompt(): string {
    return 'prompt';
  }

  @McpResource({ uri: 'admin://config', name: 'config', description: 'Admins only' })
  @UseGuards(AdminGuard)
  adminConfig(): string {
    return 'config';
  }

  @McpResource({ uri: 'public://readme', name: 'readme', description: 'Anyone' })
  readme(): string {
    return 'readme';
  }

  @McpResource({ uriTemplate: 'admin://users/{id}', name: 'user', description: 'Admins only' })
  @UseGuards(AdminGuard)
  adminUser(): string {
    return 'user';
  }
}

/**
 * The access fixtures with `auth` options, a global {@link HeaderAuthGuard} and the fast path on
 * or off; `after` are more imports and global guards, run after the authentication guard;
 * `options`, more module options (`redis`, `keyring`).
 */
export function accessApp(
  fastPath: boolean,
  auth: NonNullable<McpModuleOptions['auth']> = {},
  after: { imports?: ModuleMetadata['imports']; guards?: Type<CanActivate>[] } = {},
  options: Omit<McpModuleOptions, 'auth' | 'http'> = {},
): DynamicModule {
  @Module({
    imports: [
      McpModule.forRoot({ auth, allowEphemeralKey: true, http: { fastPath }, ...options }),
      ...(after.imports ?? []),
    ],
    providers: [
      AccessOperations,
      Payments,
      AdminGuard,
      BrokenGuard,
      { provide: APP_GUARD, useClass: HeaderAuthGuard },
      ...(after.guards ?? []).map((guard) => ({ provide: APP_GUARD, useClass: guard })),
    ],
  })
  class AccessAppModule {}
  return { module: AccessAppModule };
}

/** The access app (fast path on) on Express, as an OAuth resource server with these options. */
export function startResourceServerApp(
  resourceServer: NonNullable<McpModuleOptions['auth']>['resourceServer'],
): Promise<TestServer> {
  return startTestServer('express', { imports: [accessApp(true, { resourceServer })] });
}

/** A resource server that takes opaque tokens, introspecting them at `authorization`. */
export function startIntrospectingApp(
  authorization: Pick<AuthorizationServer, 'issuer' | 'introspection'>,
): Promise<TestServer> {
  return startResourceServerApp({
    issuer: authorization.issuer,
    introspection: authorization.introspection,
  });
}

/** The `pay` tool's confirmation, accepted. */
const CONFIRMED = { confirm: { action: 'accept', content: { ok: true } } };

/** A round of `pay` with `headers`: the first, or the one answering `first`'s confirmation. */
export function payRound(
  url: URL,
  headers: Record<string, string>,
  first?: RawRoundResponse,
): Promise<RawRoundResponse> {
  return rawToolCall(
    url,
    'pay',
    {},
    {
      capabilities: { elicitation: { form: {} } },
      headers,
      ...(first && { requestState: stateOf(first), inputResponses: CONFIRMED }),
    },
  );
}
