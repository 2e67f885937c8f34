import type { ParamsFactory } from '@nestjs/core/helpers/external-context-creator';
import { operationCallOf } from './mcp-operation-call';
import { ownValue } from '../util/own-property';
import { McpParamtype } from './mcp-paramtype.enum';

/**
 * Maps `@McpArgs()` / `@McpRequestContext()` slots onto an operation handler's arguments
 * `(httpRequest, httpResponse, next, call)`.
 */
export class McpParamsFactory implements ParamsFactory {
  exchangeKeyForValue(type: number, data: unknown, args: unknown[]): unknown {
    const call = operationCallOf(args);
    if (!call) return undefined;
    switch (type) {
      case McpParamtype.ARGS:
        return data === undefined ? call.args : ownValue(call.args, String(data));
      case McpParamtype.CONTEXT:
        return call.context;
      default:
        return undefined;
    }
  }
}
