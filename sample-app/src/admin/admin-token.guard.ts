import {
  Injectable,
  NotFoundException,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Admits `Authorization: Bearer <MCP_ADMIN_TOKEN>`; without the variable the admin API does not exist. */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const expected = process.env.MCP_ADMIN_TOKEN;
    if (!expected) throw new NotFoundException();
    const header = context.switchToHttp().getRequest<IncomingMessage>().headers.authorization ?? '';
    const given = Buffer.from(header);
    const wanted = Buffer.from(`Bearer ${expected}`);
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted))
      throw new UnauthorizedException();
    return true;
  }
}
