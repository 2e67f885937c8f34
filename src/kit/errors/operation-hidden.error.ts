import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from './mcp-error-codes';

/**
 * An operation's visibility predicate (`visibleTo`) does not show it to this caller. Thrown by the
 * predicate's guard; every path answers it as for an operation nobody serves (lists leave it out,
 * a call gets the unknown tool, prompt or resource answer), whatever `auth.lists` says. Anything
 * that does not know it sees a plain `-32003 Forbidden`, which fails closed.
 * @internal
 */
export class OperationHiddenError extends ProtocolError {
  constructor() {
    super(McpErrorCode.Forbidden, 'Forbidden');
  }
}
