import { applyDecorators, UseGuards } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { RolesGuard } from './roles.guard';

/** The roles an operation requires, read by {@link RolesGuard}. */
export const RequiredRoles = Reflector.createDecorator<string[]>();

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
