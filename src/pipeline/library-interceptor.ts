import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import type { ProtocolError } from '@modelcontextprotocol/server';
import { lastValueFrom, Observable } from 'rxjs';
import type { MaybePromise } from '../kit/maybe-promise';
import { operationCallOf, type OperationCall } from './operation-call';

/**
 * One of the module's own interceptors (argument validation, capability gating, state
 * protection), which the module applies as the innermost interceptors of every operation that
 * needs them: Nest's own `InterceptorsConsumer` runs them after the application's global, class
 * and method interceptors. Its work is {@link around}; `intercept()` is that work behind Nest's
 * interceptor contract, for the operation's own call (found by position in the handler's
 * arguments) — anything else passes through.
 * @internal
 */
export abstract class LibraryInterceptor implements NestInterceptor {
  /** Runs the step around `proceed` (the steps inside it, then the pipes and the method). */
  abstract around(call: OperationCall, proceed: () => Promise<unknown>): MaybePromise<unknown>;

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const call = operationCallOf(context.getArgs());
    if (call?.purpose !== 'operation') return next.handle();
    // One Observable of the step's outcome, not `defer` over an async function: each rxjs
    // operator and promise turn here is paid on every call of every operation with state or input.
    return new Observable<unknown>((subscriber) => {
      let outcome: MaybePromise<unknown>;
      try {
        outcome = this.around(call, () => lastValueFrom(next.handle()));
      } catch (error) {
        subscriber.error(error);
        return;
      }
      Promise.resolve(outcome).then(
        (value) => {
          subscriber.next(value);
          subscriber.complete();
        },
        (error: unknown) => subscriber.error(error),
      );
    });
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
