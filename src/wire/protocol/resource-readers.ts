import { Injectable } from '@nestjs/common';
import type { ReadResourceResult, ServerContext } from '@modelcontextprotocol/server';
import type { HttpExchange } from '../../pipeline/http-exchange';
import { resourceNotFound } from './unknown-operation';

/**
 * Reads one resource an extension serves itself: its result, or `undefined` when it serves no
 * such resource to this caller (the dispatcher then answers as for any URI nobody serves).
 * @publicApi
 */
export type McpResourceReader = (
  uri: string,
  sdk: ServerContext,
  exchange: HttpExchange,
) => Promise<ReadResourceResult | undefined>;

/**
 * The seam where an extension serves `resources/read` for URIs of its own (the skills extension's
 * `skill://…` files), by URI prefix. The dispatcher asks it only for a URI no resource operation
 * serves, on every path (fast path, SDK path, 2025-era sessions).
 *
 * @example
 * ```ts
 * this.readers.add('note://', async (uri) => notes.contentsOf(uri)); // undefined: no such note
 * ```
 * @publicApi
 */
@Injectable()
export class McpResourceReaders {
  private readonly readers: { readonly prefix: string; readonly read: McpResourceReader }[] = [];

  /** Serves the URIs that start with `prefix` (`skill://`); a prefix claimed twice fails startup. */
  add(prefix: string, read: McpResourceReader): void {
    if (
      this.readers.some(
        (reader) => prefix.startsWith(reader.prefix) || reader.prefix.startsWith(prefix),
      )
    )
      throw new Error(`Resource URIs starting with "${prefix}" are served already`);
    this.readers.push({ prefix, read });
  }

  /**
   * `uri` as the extension serving its prefix reads it; what a URI nobody serves answers otherwise.
   * @internal
   */
  async read(uri: string, sdk: ServerContext, exchange: HttpExchange): Promise<ReadResourceResult> {
    const reader = this.readers.find((candidate) => uri.startsWith(candidate.prefix));
    const result = reader && (await reader.read(uri, sdk, exchange));
    if (!result) throw resourceNotFound(uri);
    return result;
  }
}
