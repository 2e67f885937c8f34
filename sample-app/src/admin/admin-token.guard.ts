import {
  Injectable,
  NotFoundException,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { bearerToken } from '../demo-auth/bearer-token';

/** Admits `Authorization: Bearer <MCP_ADMIN_TOKEN>`; without the variable the admin API does not exist. */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const expected = process.env.MCP_ADMIN_TOKEN;
    if (!expected) throw new NotFoundException();
    const given = Buffer.from(
      bearerToken(context.switchToHttp().getRequest<IncomingMessage>().headers.authorization) ?? '',
    );
    const wanted = Buffer.from(expected);
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted))
      throw new UnauthorizedException();
    return true;
  }
}
