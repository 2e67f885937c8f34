import { NestjsMcpError } from '../../kit/errors/nestjs-mcp.error';
import { quoted } from '../../kit/quoted';

/**
 * Thrown at startup (or when a watched skills folder is read again) for a skill that cannot be
 * served: the message names the file or folder and the rule it breaks. The location is quoted and
 * escaped ({@link quoted}): a folder's name is the filesystem's, and may hold anything.
 * @internal
 */
export class InvalidSkillError extends NestjsMcpError {
  constructor(
    /** The file, folder or `@McpSkill()` method at fault; `undefined` for the skills together. */
    readonly location: string | undefined,
    /** The rule it breaks; any name in it already {@link quoted}. */
    readonly rule: string,
  ) {
    super(
      location === undefined
        ? `Invalid MCP skills: ${rule}`
        : `Invalid MCP skill ${quoted(location)}: ${rule}`,
    );
  }
}
