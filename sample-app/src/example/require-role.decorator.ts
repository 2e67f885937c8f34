import { applyDecorators, UseGuards } from '@nestjs/common';
import { RolesGuard } from './roles.guard';
import { RequiredRoles } from './roles.metadata';

/**
 * Lets the call through only for callers holding every listed role.
 *
 * @example
 * ```ts
 * @RequireRole('agent')
 * @McpTool({ description: 'Opens a ticket' })
 * create(@McpArgs() dto: CreateTicketDto) { ... }
 * ```
 */
export function RequireRole(...roles: string[]): MethodDecorator & ClassDecorator {
  return applyDecorators(RequiredRoles(roles), UseGuards(RolesGuard));
}
