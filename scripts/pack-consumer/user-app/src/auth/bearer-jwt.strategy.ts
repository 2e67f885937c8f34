import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { jwtVerify } from 'jose';
import { Strategy } from 'passport-http-bearer';
import type { AppUser } from './app-user.js';

/** The issuer and audience of the app's access tokens. */
export const TOKEN_ISSUER = 'https://id.example.com/';
export const TOKEN_AUDIENCE = 'user-app';

/**
 * `Authorization: Bearer <JWT>`: a token signed (HS256) with JWT_SECRET, for this app, by its
 * issuer, unexpired. The user passport puts on `req.user` is the shape of the Nest docs' JWT
 * strategy: `{ userId: sub, username }`.
 */
@Injectable()
export class BearerJwtStrategy extends PassportStrategy(Strategy, 'bearer') {
  private readonly secret = new TextEncoder().encode(process.env.JWT_SECRET);

  async validate(token: string): Promise<AppUser | false> {
    try {
      const { payload } = await jwtVerify(token, this.secret, {
        issuer: TOKEN_ISSUER,
        audience: TOKEN_AUDIENCE,
        algorithms: ['HS256'],
      });
      if (typeof payload.sub !== 'string' || typeof payload.username !== 'string') return false;
      return { userId: payload.sub, username: payload.username };
    } catch {
      return false;
    }
  }
}
