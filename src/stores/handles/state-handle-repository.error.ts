import { NestjsMcpError } from '../../errors/nestjs-mcp.error';

/**
 * A {@link StateHandleRepository} could not answer (e.g. `full`, `unavailable`, `timeout`). The call
 * fails with `-32603` and the reason is logged; the reason must hold no handle, data or secret.
 *
 * @publicApi
 */
export class StateHandleRepositoryError extends NestjsMcpError {
  constructor(readonly reason: string) {
    super(`State handle repository failed: ${reason}`);
  }
}
