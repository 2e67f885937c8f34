import { Server } from '@modelcontextprotocol/server';
import { DivertedCall } from './call-divert';

type Handler = Parameters<Server['_wrapHandler']>[1];

/** What observes the requests of the SDK path (the dispatcher's spans). @internal */
export interface ObserveRequest {
  /** Whether anything observes now; when not, a request is served as if nothing were there. */
  observing(): boolean;
  /** Serves one request of `method`, given the SDK's context of it, under its span. */
  served(
    method: string,
    ctx: Parameters<Handler>[1],
    serve: () => ReturnType<Handler>,
  ): ReturnType<Handler>;
}

/**
 * The SDK's low-level `Server`, except that a `tools/call` an extension diverted
 * ({@link DivertedCall}, e.g. the tasks extension's flat `CreateTaskResult`) goes out as it is: the
 * SDK would validate it as a tool result and add an empty `content`. Every request but the
 * runner's operations is served under its span ({@link observeWith}).
 * @internal
 */
export class McpSdkServer extends Server {
  /**
   * Set after construction: the SDK registers its own handlers (`ping`, `initialize`,
   * `server/discover`, `logging/setLevel`) from its constructor, so each wrapped handler reads it
   * when it runs.
   */
  private observe: ObserveRequest | undefined;
  /** Methods whose requests something else observes (the runner's operations). */
  private unobserved: ReadonlySet<string> = new Set();

  /** Serves every method but `unobserved` through `observe`. */
  observeWith(observe: ObserveRequest, unobserved: ReadonlySet<string>): void {
    this.observe = observe;
    this.unobserved = unobserved;
  }

  protected override _wrapHandler(method: string, handler: Handler): Handler {
    const wrapped = this.wrapped(method, handler);
    return (request, ctx) =>
      this.observe?.observing() && !this.unobserved.has(method)
        ? this.observe.served(method, ctx, () => wrapped(request, ctx))
        : wrapped(request, ctx);
  }

  private wrapped(method: string, handler: Handler): Handler {
    if (method !== 'tools/call') return super._wrapHandler(method, handler);
    // Thrown past the SDK's result validation, caught again outside it.
    const wrapped = super._wrapHandler(method, async (request, ctx) => {
      const result: unknown = await handler(request, ctx);
      if (result instanceof DivertedCall) throw result;
      return result as Awaited<ReturnType<Handler>>;
    });
    return async (request, ctx) => {
      try {
        return await wrapped(request, ctx);
      } catch (thrown) {
        if (thrown instanceof DivertedCall) return thrown.result as Awaited<ReturnType<Handler>>;
        throw thrown;
      }
    };
  }
}
