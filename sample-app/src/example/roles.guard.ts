import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { isMcpContext, McpExecutionContext } from '../../../src/index';
import { RequiredRoles } from './roles.metadata';

/** A stand-in for a real identity provider: bearer token (a user name) to roles. */
const ROLES_BY_USER: Readonly<Record<string, readonly string[]>> = {
  alice: ['agent'],
  bob: ['viewer'],
};

/**
 * Checks `Authorization: Bearer <user>` against {@link ROLES_BY_USER}. Only guards MCP operations;
 * other contexts are left to their own guards.
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
    const authorization =
      McpExecutionContext.create(context).getRequestContext().http.request?.headers.authorization;
    const user = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    const roles = user === undefined ? [] : (ROLES_BY_USER[user] ?? []);
    return required.every((role) => roles.includes(role));
  }
}
