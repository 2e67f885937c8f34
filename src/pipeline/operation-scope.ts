import { AsyncLocalStorage } from 'node:async_hooks';
import type { InputRequestPolicy } from '../input/input-request-policy';
import type { McpOperationCall } from './mcp-operation-call';

/** What holds for the whole of one operation call, wherever its code runs. */
export interface OperationScope {
  /** The policy input requests built during the call are checked against. */
  readonly policy: InputRequestPolicy;
  /** The call, for the library step that wraps the method (Nest hands the method only its parameters). */
  readonly call: McpOperationCall | undefined;
}

const scopes = new AsyncLocalStorage<OperationScope>();

/**
 * The scope of the operation call being run. The dispatcher enters it around the Nest pipeline
 * of each call, so code that Nest calls without the call's arguments (input request builders in
 * handler code, the step around the method) can still reach it.
 * @internal
 */
export const operationScope = {
  current(): OperationScope | undefined {
    return scopes.getStore();
  },
  run<T>(scope: OperationScope, work: () => T): T {
    return scopes.run(scope, work);
  },
};
