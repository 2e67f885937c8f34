/**
 * How tools' calls may become tasks: whether an extension serves tasks at all, the lifetime a
 * task gets by default and the longest a tool may ask for. Provided by the extension that serves
 * tasks; without one, no tool's call becomes a task.
 * @internal
 */
export interface ToolTaskSupport {
  readonly served: boolean;
  readonly ttlMs: number;
  readonly maxTtlMs: number;
}

/** Injection token of the {@link ToolTaskSupport}, provided by the extension that serves tasks. @internal */
export const TOOL_TASK_SUPPORT = Symbol('ToolTaskSupport');

/** No extension serves tasks: every tool is `taskSupport: 'forbidden'` on the wire. @internal */
export const NO_TOOL_TASK_SUPPORT: ToolTaskSupport = Object.freeze({
  served: false,
  ttlMs: 1,
  maxTtlMs: Number.MAX_SAFE_INTEGER,
});
