import { Reflector } from '@nestjs/core';

/** The roles an operation requires, read by `RolesGuard`. */
export const RequiredRoles = Reflector.createDecorator<string[]>();
