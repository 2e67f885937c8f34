import type { ProtocolError, ServerContext } from '@modelcontextprotocol/server';
import type { CallerPartitions } from '../../auth/identity/caller-partitions';
import { andThen } from '../../kit/maybe-promise';
import type { McpCoreEvents } from '../../options/mcp-core-events';
import type { HttpExchange } from '../../pipeline/http-exchange';
import { createOperationContext } from '../../pipeline/operation-context.factory';
import { unknownOperation } from './unknown-operation';

/**
 * What a call of a tool or prompt nobody serves is answered, told to the core's observers (an audit
 * trail) when anyone observes: no operation ran, so no guard named the caller — its partition is
 * what the request shows.
 * @internal
 */
export class UnknownTargets {
  constructor(
    private readonly events: McpCoreEvents,
    private readonly partitions: CallerPartitions,
  ) {}

  refuse(
    kind: 'tool' | 'prompt',
    name: string,
    args: Readonly<Record<string, unknown>> | undefined,
    sdk: ServerContext,
    exchange: HttpExchange,
  ): ProtocolError {
    const error = unknownOperation(kind, name);
    if (this.events.watched)
      announce(this.events, this.partitions, { kind, name, args, error }, sdk, exchange);
    return error;
  }
}

/** A call of a tool or prompt nobody serves, and what it was answered. */
interface UnknownTarget {
  readonly kind: 'tool' | 'prompt';
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>> | undefined;
  readonly error: ProtocolError;
}

function announce(
  events: McpCoreEvents,
  partitions: CallerPartitions,
  target: UnknownTarget,
  sdk: ServerContext,
  exchange: HttpExchange,
): void {
  const context = createOperationContext(sdk, target.name, exchange, undefined);
  const publish = (principal: string) =>
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
    void Promise.resolve(andThen(partitions.resolve(context), publish)).catch(() => undefined);
  } catch {
    // A partition resolver that throws: the refusal was answered; nothing to observe.
  }
}
