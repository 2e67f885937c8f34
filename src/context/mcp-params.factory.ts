import type { ParamsFactory } from '@nestjs/core/helpers/external-context-creator';
import { McpParamtype } from './mcp-paramtype.enum';

/** Maps `@McpArgs()` / `@McpRequestContext()` slots onto the `(args, context)` call of an operation handler. */
export class McpParamsFactory implements ParamsFactory {
  exchangeKeyForValue(type: number, data: unknown, args: unknown[]): unknown {
    switch (type) {
      case McpParamtype.ARGS: {
        const operationArgs = args[0] as Record<string, unknown> | undefined;
        return data === undefined ? operationArgs : operationArgs?.[String(data)];
      }
      case McpParamtype.CONTEXT:
        return args[1];
      default:
        return undefined;
    }
  }
}
