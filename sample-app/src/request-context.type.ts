import type { McpExecutionContext } from '../../src/index';

/**
 * What `@McpRequestContext()` injects. The library barrel exports only the decorator under that
 * name, so the interface is reached through the public `McpExecutionContext`.
 */
export type RequestContext = ReturnType<McpExecutionContext['getRequestContext']>;
