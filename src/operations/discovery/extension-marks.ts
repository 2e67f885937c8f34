import { Injectable } from '@nestjs/common';
import { InvalidModuleOptionsError } from '../../kit/errors/invalid-module-options.error';

/**
 * What an extension's decorator marks a method with ({@link MCP_EXTENSION_MARK_METADATA}): whose
 * it is, and how an application turns that extension on.
 * @internal
 */
export interface McpExtensionMark {
  /** The extension's id (`io.modelcontextprotocol/skills`). */
  readonly extension: string;
  /** The decorator, as the application writes it (`@McpSkill()`). */
  readonly decorator: string;
  /** The module option that turns the extension on (`skills`). */
  readonly option: string;
}

/**
 * The seam where an installed extension claims the methods its decorators mark. A marked method
 * whose extension is off would be silently ignored; the explorer asks here and fails startup
 * instead, naming the method and the option that turns the extension on.
 * @internal
 */
@Injectable()
export class McpExtensionMarks {
  private readonly claimed = new Set<string>();

  /** Claims the methods marked for `extension` (its installer, while the module initializes). */
  claim(extension: string): void {
    this.claimed.add(extension);
  }

  /** Fails startup when `mark`'s extension is not installed. */
  check(where: string, mark: McpExtensionMark): void {
    if (this.claimed.has(mark.extension)) return;
    throw new InvalidModuleOptionsError(
      mark.option,
      `${where} is decorated with ${mark.decorator}, but the ${mark.extension} extension is off; ` +
        `set the "${mark.option}" option to serve it`,
    );
  }
}
