import type { ArgumentsHost } from '@nestjs/common';
import { MCP_CONTEXT_TYPE } from '../../kit/mcp.constants';

/**
 * Whether an enhancer is running for an MCP operation. Global HTTP-minded guards and interceptors
 * can use it to opt out (or in).
 *
 * @publicApi
 */
export function isMcpContext(context: ArgumentsHost): boolean {
  return context.getType<string>() === MCP_CONTEXT_TYPE;
}
