import type { ProtocolError, ServerContext } from '@modelcontextprotocol/server';
import type { CallerPartitions } from '../../auth/identity/caller-partitions';
import { andThen } from '../../kit/maybe-promise';
import type { McpCoreEvents } from '../../options/mcp-core-events';
import type { HttpExchange } from '../../pipeline/http-exchange';
import { createOperationContext } from '../../pipeline/operation-context.factory';

/** A call of a tool or prompt nobody serves, and what it was answered. */
interface UnknownTarget {
  readonly kind: 'tool' | 'prompt';
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>> | undefined;
  readonly error: ProtocolError;
}

/**
 * Tells the core's observers (an audit trail) that a call of nothing served was refused: no
 * operation ran, so no guard named the caller — its partition is what the request shows.
 * @internal
 */
export function announceUnknownTarget(
  events: McpCoreEvents,
  partitions: CallerPartitions,
  target: UnknownTarget,
  sdk: ServerContext,
  exchange: HttpExchange,
): void {
  const context = createOperationContext(sdk, target.name, exchange, undefined);
  const announce = (principal: string) =>
    events.publish({
      kind: 'call',
      handle: target.error,
      operation: target.kind,
      method: context.method,
      target: target.name,
      principal,
      protocolVersion: context.protocolVersion,
      requestId: context.requestId,
      sessionId: (sdk as { sessionId?: string }).sessionId,
      taskId: undefined,
      arguments: target.args ?? {},
      clearArguments: [],
      flowId: undefined,
      round: 1,
      outcome: 'refused',
      code: target.error.code,
      refusal: { reason: 'unknown_target' },
    });
  try {
    void Promise.resolve(andThen(partitions.resolve(context), announce)).catch(() => undefined);
  } catch {
    // A partition resolver that throws: the refusal was answered; nothing to observe.
  }
}
