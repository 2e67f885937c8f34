import { NestjsMcpError } from '../../kit/errors/nestjs-mcp.error';

/**
 * Thrown at startup (or when a watched skills folder is read again) for a skill that cannot be
 * served: the message names the file or folder and the rule it breaks.
 * @internal
 */
export class InvalidSkillError extends NestjsMcpError {
  constructor(
    /** The file, folder or `@McpSkill()` method at fault. */
    readonly location: string,
    /** The rule it breaks. */
    readonly rule: string,
  ) {
    super(`Invalid MCP skill ${location}: ${rule}`);
  }
}
