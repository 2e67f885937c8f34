import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import type { ProtocolError } from '@modelcontextprotocol/server';
import { defer, lastValueFrom, type Observable } from 'rxjs';
import type { MaybePromise } from '../util/maybe-promise';
import { operationCallOf, type OperationCall } from './operation-call';

/**
 * One of the module's own interceptors, which the module applies as the innermost interceptors of
 * every operation that declares input or state. Its work is {@link around}; `intercept()` is the
 * same work behind Nest's interceptor contract. The module's handler runs `around` directly, right
 * inside the application's interceptors: Nest's interceptor chain costs each call an rxjs pipeline
 * and a bound async resource per interceptor, far more than the steps themselves.
 * @internal
 */
export abstract class LibraryInterceptor implements NestInterceptor {
  /** Runs the step around `proceed` (the steps inside it, then the pipes and the method). */
  abstract around(call: OperationCall, proceed: () => Promise<unknown>): MaybePromise<unknown>;

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const call = operationCallOf(context.getArgs());
    if (call?.purpose !== 'operation') return next.handle();
    return defer(async () => this.around(call, () => lastValueFrom(next.handle())));
  }
}

/**
 * Records a refusal of the module's own steps on the call before throwing it, so that an
 * application interceptor that catches it and answers something else cannot turn a refused call
 * into a result: the runner answers the recorded refusal.
 * @internal
 */
export function refusal(call: OperationCall, error: ProtocolError): ProtocolError {
  call.recordOutcome({ kind: 'refused', error });
  return error;
}
