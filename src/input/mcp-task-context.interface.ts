/**
 * The task side of a tool call (`ctx.task`), present when the call runs as a task or may become
 * one: the tool supports tasks and the client declared the tasks extension on the request.
 *
 * @example
 * ```ts
 * @McpTool({ description: 'Exports a report', taskSupport: 'required', taskCreation: 'deferred' })
 * async export(@McpContext() ctx: McpContext) {
 *   const format = ctx.inputResponses.find('format');
 *   if (!format) return McpInputRequiredResult.withInputRequest('format', askFormat); // a normal round
 *   await ctx.task?.start(); // the client now gets the task; the rest runs in the background
 *   return this.reports.build(format, ctx.signal);
 * }
 * ```
 * @publicApi
 */
export interface McpTaskContext {
  /** The task's id once the call runs as a task; `undefined` before `start()` (deferred creation). */
  readonly id: string | undefined;
  /**
   * Makes the call a task: resolves once the task exists and the client has been answered with it;
   * the method goes on running in the background. Does nothing when the call already is a task.
   */
  start(): Promise<void>;
}
