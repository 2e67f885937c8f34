import { Catch, type ExceptionFilter } from '@nestjs/common';
import { ProtocolError } from '@modelcontextprotocol/server';

/**
 * Lets JSON-RPC protocol errors (rejected state, missing capabilities, invalid input responses)
 * reach the client without Nest logging each one as an application error with a stack trace.
 * Other errors still go through the application's filters.
 *
 * Attached to every operation by `@McpTool`, `@McpPrompt` and `@McpResource`.
 */
@Catch(ProtocolError)
export class ProtocolErrorPassthroughFilter implements ExceptionFilter {
  catch(error: ProtocolError): never {
    throw error;
  }
}
