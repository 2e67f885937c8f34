import type { Type } from '@nestjs/common';
import type { CreateMessageParams, ElicitFormParams, ElicitUrlParams } from './mcp-input-request';
import type {
  McpElicitationResponse,
  McpRootsResponse,
  McpSamplingResponse,
} from './mcp-input-response';
import type { McpTypedElicitationResponse } from './mcp-input-responses';

/**
 * Replay-style asks, on the request context of an operation with `replay: true`: write the handler
 * top to bottom and `await` what you need from the client. The Nth ask of an execution is slot N
 * (key `ask-N`); an answered slot resolves at once with its recorded answer, and the first
 * unanswered one ends the round with an input-required result, so **the handler runs again from
 * the top every round** — put side effects after the last ask. Asks made together (one
 * `Promise.all`) are one round. Asking a different question at a recorded slot is refused with
 * -32602. Each ask is built and checked like the matching `McpInputRequest` factory, and must be
 * declared with `@McpMayRequestInput`. In other operations the asks throw (-32603). See
 * `docs/replay.md`.
 *
 * @example
 * ```ts
 * @McpTool({ description: 'Signs a user up', replay: true })
 * @McpMayRequestInput({ type: 'elicitation.form' })
 * async onboard(@McpContext() ctx: McpContext) {
 *   const name = await ctx.elicit({ message: 'Your name?', requestedSchema: nameSchema }, NameAnswer);
 *   if (name.action !== 'accept') return 'Cancelled';
 *   await this.users.create(name.content!.name); // after the last ask: runs once
 *   return `Welcome, ${name.content!.name}`;
 * }
 * ```
 * @publicApi
 */
export interface McpReplayAsks {
  /** Asks the user to fill a form (`elicitation.form`); resolves with the answer, whatever its action. */
  elicit(params: ElicitFormParams): Promise<McpElicitationResponse>;
  /**
   * Asks the user to fill a form; accepted content is converted to `dto` and validated
   * (class-validator), and invalid content is answered with -32602.
   */
  elicit<T extends object>(
    params: ElicitFormParams,
    dto: Type<T>,
  ): Promise<McpTypedElicitationResponse<T>>;
  /** Sends the user to a URL the server controls (`elicitation.url`). */
  elicitUrl(params: ElicitUrlParams): Promise<McpElicitationResponse>;
  /** Asks the client's model for a completion (`sampling`, or `sampling.tools` when offering tools). */
  createMessage(params: CreateMessageParams): Promise<McpSamplingResponse>;
  /** Asks the client for its roots (`roots`). */
  listRoots(): Promise<McpRootsResponse>;
}
