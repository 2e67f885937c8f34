import type { ClientRequestOutcome } from './observed-request';
import type { ObservedRound } from './observed-call';

/** One observed call between its start and its end. @internal */
export interface CallObservation {
  /** Runs `work` with the call's span active, so the application's own spans nest under it. */
  within<T>(work: () => Promise<T>): Promise<T>;
  end(round: ObservedRound): void;
}

/** One observed request that runs no operation, between its start and its end. @internal */
export interface RequestObservation {
  within<T>(work: () => Promise<T>): Promise<T>;
  /**
   * `errorType`: the JSON-RPC code of the error it was answered with; `sessionId`: the 2025-era
   * session it opened (an `initialize`).
   */
  end(errorType?: string, sessionId?: string): void;
}

/** One server-to-client request between its sending and its answer. @internal */
export interface ClientRequestObservation {
  end(outcome: ClientRequestOutcome, errorType?: string): void;
}
