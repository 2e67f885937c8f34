import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { AppUser } from './app-user.js';

/** The signed-in user, from `req.user` (the Nest docs' custom parameter decorator). */
export const CurrentUser = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): AppUser =>
    ctx.switchToHttp().getRequest<{ user: AppUser }>().user,
);
