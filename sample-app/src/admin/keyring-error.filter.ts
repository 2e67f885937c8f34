import { Catch, HttpStatus, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { KeyInUseError, KeyringError } from '../../../src/index';

/** Answers refused keyring operations with 409 (in use) or 400, naming the key id only. */
@Catch(KeyringError)
export class KeyringErrorFilter implements ExceptionFilter {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(error: KeyringError, host: ArgumentsHost): void {
    const status = error instanceof KeyInUseError ? HttpStatus.CONFLICT : HttpStatus.BAD_REQUEST;
    this.adapterHost.httpAdapter.reply(
      host.switchToHttp().getResponse(),
      { statusCode: status, message: error.message },
      status,
    );
  }
}
