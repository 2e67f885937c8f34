import type { ParamsFactory } from '../kit/nest-internals';
import { ownValue } from '../kit/own-property';
import { operationCallOf } from './operation-call';
import { McpParamtype } from './mcp-paramtype.enum';

/**
 * Maps `@McpArgs()` / `@McpContext()` slots onto an operation handler's arguments
 * `(httpRequest, httpResponse, next, call)`: the arguments as validated and the context of the
 * opened round, once the library's steps produced them.
 * @internal
 */
export class McpParamsFactory implements ParamsFactory {
  exchangeKeyForValue(type: number, data: unknown, args: unknown[]): unknown {
    const call = operationCallOf(args);
    if (!call) return undefined;
    switch (type) {
      case McpParamtype.ARGS:
        return data === undefined ? call.methodArgs : ownValue(call.methodArgs, String(data));
      case McpParamtype.CONTEXT:
        return call.methodContext;
      default:
        return undefined;
    }
  }
}
