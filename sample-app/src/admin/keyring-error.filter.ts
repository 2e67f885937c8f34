import { Catch, HttpStatus, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { KeyInUseError, KeyringError } from '../../../src/index';

/**
 * Answers refused keyring operations with 409 (in use) or 400, naming the key id only; the fleet's
 * Redis away (`retryAfterMs`) with 503 and `Retry-After`, as the MCP endpoint answers an outage.
 */
@Catch(KeyringError)
export class KeyringErrorFilter implements ExceptionFilter {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(error: KeyringError, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse();
    const adapter = this.adapterHost.httpAdapter;
    if (error.retryAfterMs !== undefined) {
      adapter.setHeader(response, 'Retry-After', String(Math.ceil(error.retryAfterMs / 1000)));
      adapter.reply(
        response,
        {
          statusCode: HttpStatus.SERVICE_UNAVAILABLE,
          message: error.message,
          retryAfterMs: error.retryAfterMs,
        },
        HttpStatus.SERVICE_UNAVAILABLE,
      );
      return;
    }
    const status = error instanceof KeyInUseError ? HttpStatus.CONFLICT : HttpStatus.BAD_REQUEST;
    adapter.reply(response, { statusCode: status, message: error.message }, status);
  }
}
