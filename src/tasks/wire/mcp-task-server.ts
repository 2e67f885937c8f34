import { Server } from '@modelcontextprotocol/server';

type Handler = Parameters<Server['_wrapHandler']>[1];

/** Carries a `CreateTaskResult` past the SDK's `tools/call` result validation. */
class TaskCreated {
  constructor(readonly result: Awaited<ReturnType<Handler>>) {}
}

/**
 * The SDK's low-level `Server`, except that a `tools/call` answered with a task
 * (`resultType: "task"`) goes out as the flat `CreateTaskResult` the tasks extension defines: the
 * SDK would validate it as a tool result and add an empty `content`.
 * @internal
 */
export class McpTaskServer extends Server {
  protected override _wrapHandler(method: string, handler: Handler): Handler {
    if (method !== 'tools/call') return super._wrapHandler(method, handler);
    const wrapped = super._wrapHandler(method, async (request, ctx) => {
      const result = await handler(request, ctx);
      if ((result as { resultType?: unknown }).resultType === 'task') throw new TaskCreated(result);
      return result;
    });
    return async (request, ctx) => {
      try {
        return await wrapped(request, ctx);
      } catch (thrown) {
        if (thrown instanceof TaskCreated) return thrown.result;
        throw thrown;
      }
    };
  }
}
