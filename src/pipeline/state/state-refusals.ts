import type { Logger } from '@nestjs/common';
import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { INVALID_REQUEST_STATE_MESSAGE } from '../../kit/errors/invalid-request-state.message';
import type {
  RequestStateFailureDetail,
  RequestStateFailureReason,
} from '../../request-state/sealing/request-state-protection.error';
import { rejectionHint } from '../../request-state/sealing/request-state-rejection-hint';
import { clip } from '../../kit/clip';
import { refusal } from '../library-interceptor';
import type { OperationCall } from '../operation-call';

/**
 * How state protection names a call in its log lines and refuses a state: every refusal is the one
 * -32602 `Invalid request state` on the wire, its reason recorded on the call and logged.
 * @internal
 */
export class StateRefusals {
  constructor(readonly logger: Logger) {}

  /** The call and its flow: the opened round's, or `flowId` when the state was refused. */
  where(call: OperationCall, flowId = call.opened?.flow.id): string {
    const flow = flowId === undefined ? 'state not opened' : `flow ${flowId}`;
    return `MCP ${call.context.method} "${clip(call.target)}" (request ${clip(call.context.requestId)}, ${flow})`;
  }

  reject(
    call: OperationCall,
    reason: RequestStateFailureReason,
    detail?: RequestStateFailureDetail,
    flowId?: string,
  ): ProtocolError {
    call.recordRejection(flowId === undefined ? { reason, detail } : { reason, detail, flowId });
    this.logger.warn(
      `${this.where(call, flowId)}: request state rejected: ${reason}${detail === undefined ? '' : ` (${detail})`}${rejectionHint(reason, detail)}`,
    );
    return refusal(
      call,
      new ProtocolError(McpErrorCode.InvalidParams, INVALID_REQUEST_STATE_MESSAGE),
    );
  }
}
