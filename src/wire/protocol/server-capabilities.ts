import { Injectable } from '@nestjs/common';
import type { ServerCapabilities } from '@modelcontextprotocol/server';

/**
 * The seam where an extension declares itself: its entry under `capabilities.extensions` (with its
 * settings inline) and any capability it needs the server to have. Read each time a server is
 * built, after the module initialized; a 2025-era session's `initialize` reads the entries
 * declared for that era too.
 *
 * @example
 * ```ts
 * this.capabilities.declareExtension('com.example/notes', { maxNotes: 100 });
 * ```
 * @publicApi
 */
@Injectable()
export class McpServerCapabilities {
  private readonly extensions: Record<string, Record<string, unknown>> = {};
  private readonly legacy: Record<string, Record<string, unknown>> = {};
  private readonly added: ServerCapabilities[] = [];

  /**
   * Declares the extension `id` with `settings` (`{}` when it has none); `legacy: true` declares it
   * to 2025-era sessions too (its methods are then registered for that era as well).
   */
  declareExtension(
    id: string,
    settings: Record<string, unknown> = {},
    eras: { readonly legacy?: boolean } = {},
  ): void {
    if (Object.hasOwn(this.extensions, id))
      throw new Error(`The MCP extension "${id}" is declared twice`);
    this.extensions[id] = settings;
    if (eras.legacy === true) this.legacy[id] = settings;
  }

  /**
   * The extension entries a 2025-era session's `initialize` declares; `undefined` when none.
   * @internal
   */
  legacyExtensions(): Record<string, Record<string, unknown>> | undefined {
    return Object.keys(this.legacy).length > 0 ? { ...this.legacy } : undefined;
  }

  /** Adds capabilities an extension needs (merged one level deep over the core's). */
  require(capabilities: ServerCapabilities): void {
    this.added.push(capabilities);
  }

  /**
   * The capabilities the server declares: the core's, what extensions added, their entries.
   * @internal
   */
  of(core: ServerCapabilities): ServerCapabilities {
    const merged: Record<string, unknown> = { ...core };
    for (const capabilities of this.added)
      for (const [name, value] of Object.entries(capabilities))
        merged[name] =
          isObject(merged[name]) && isObject(value) ? { ...merged[name], ...value } : value;
    if (Object.keys(this.extensions).length > 0)
      merged.extensions = { ...(merged.extensions as object | undefined), ...this.extensions };
    return merged as ServerCapabilities;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
