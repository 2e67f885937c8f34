import { NestjsMcpError } from '../../errors/nestjs-mcp.error';

/**
 * A {@link ConsumedStateStore} could not record a presentation (e.g. `full`, `unavailable`). The
 * call fails with `-32603` and the reason is logged; the reason must hold no state or secret.
 *
 * @publicApi
 */
export class ConsumedStateStoreError extends NestjsMcpError {
  constructor(readonly reason: string) {
    super(`Consumed-state store failed: ${reason}`);
  }
}
