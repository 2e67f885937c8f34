import { NestjsMcpError } from '../../../kit/errors/nestjs-mcp.error';

/**
 * Thrown by a {@link SessionStore} that holds as many sessions as it may — in all, or for the
 * session's caller (`scope: 'caller'`); the client's `initialize` is refused with -32000 (server
 * busy) and may be retried later.
 *
 * @publicApi
 */
export class SessionCapacityError extends NestjsMcpError {
  constructor(
    readonly maxSessions: number,
    readonly scope: 'store' | 'caller' = 'store',
  ) {
    super(
      scope === 'caller'
        ? `The caller holds its maximum of ${maxSessions} sessions`
        : `The session store holds its maximum of ${maxSessions} sessions`,
    );
  }
}
