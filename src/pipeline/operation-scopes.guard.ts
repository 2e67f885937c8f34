import type { CanActivate, ExecutionContext } from '@nestjs/common';
import {
  insufficientScopeRefusal,
  unauthorizedRefusal,
} from '../kit/errors/mcp-http-refusal.error';
import { callerScopesOf } from '../auth/identity/caller-scopes';
import { operationCallOf } from './operation-call';

/**
 * Checks the scopes an operation declares (`scopes` of its decorator) against the caller's token,
 * on every round of every call, after the guards before it and before any interceptor, pipe or the
 * method: nobody signed in gets the 401 challenge naming the scopes, a token without one of them
 * the 403 `insufficient_scope` step-up. A task step away from its request was checked when its
 * task was created and passes.
 * @internal
 */
export class OperationScopesGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const call = operationCallOf(context.getArgs());
    if (!call || call.detached !== undefined) return true;
    const required = call.profile.scopes;
    if (required.length === 0) return true;
    const granted = callerScopesOf(call.request, call.http.raw as never);
    if (granted === undefined) throw unauthorizedRefusal({ scopes: required });
    if (required.some((scope) => !granted.includes(scope)))
      throw insufficientScopeRefusal(required);
    return true;
  }
}

/** The one instance every scoped operation's decorator applies. @internal */
export const OPERATION_SCOPES_GUARD = new OperationScopesGuard();
