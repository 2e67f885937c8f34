import {
  Injectable,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { isMcpContext, McpExecutionContext } from '../../../src/index';
import { callerName } from '../demo-auth/caller-name';
import { RequiredRoles } from './roles.metadata';

/**
 * A stand-in for a real identity provider: bearer token (a user name) to roles. A Map, so a token
 * such as `constructor` is an unknown user rather than an `Object.prototype` member.
 */
const ROLES_BY_USER: ReadonlyMap<string, readonly string[]> = new Map([
  ['alice', ['agent']],
  ['bob', ['viewer']],
]);

/** The roles of a caller of the demo: what the stdio entry puts on its caller too. */
export function rolesOf(user: string): string[] {
  return [...(ROLES_BY_USER.get(user) ?? [])];
}

/**
 * Checks the caller (`Authorization: Bearer <user>`, or the stdio caller) against {@link ROLES_BY_USER}: nobody signed in
 * is challenged (`UnauthorizedException`: HTTP 401 with `WWW-Authenticate`), a caller without the
 * role refused (so lists hide the tool from them, and calling it answers as for an unknown tool).
 * Only guards MCP operations; other contexts are left to their own guards.
 */
@Injectable()
export class RolesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (!isMcpContext(context)) return true;
    const required = this.reflector.getAllAndOverride(RequiredRoles, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!required || required.length === 0) return true;
    const user = callerName(McpExecutionContext.create(context).getOperationContext().http.request);
    if (user === undefined) throw new UnauthorizedException('sign in to call this tool');
    const roles = ROLES_BY_USER.get(user) ?? [];
    return required.every((role) => roles.includes(role));
  }
}
