import { Injectable } from '@nestjs/common';
import type { CallToolRequest, ServerContext } from '@modelcontextprotocol/server';
import type { ToolEntry } from '../../operations/discovery/operation-entry.interface';
import type { McpOperationContext } from '../../input/mcp-operation-context.interface';
import type { HttpExchange } from '../../pipeline/http-exchange';

/**
 * The seam where an extension turns a `tools/call` into something else (the tasks extension answers
 * a `CreateTaskResult`). The dispatcher asks it after it found the tool and after the caller's
 * guards showed the tool to the caller, so a hidden tool answers as an unknown one whatever the
 * divert would have said.
 * @internal
 */
export interface McpCallDivert {
  /** The client capability extension whose declaration can divert a call (`io.modelcontextprotocol/tasks`). */
  readonly extension: string;
  /** Whether a call of `tool` can be diverted at all; asked first, synchronously, once per tool. */
  appliesTo(tool: ToolEntry): boolean;
  /**
   * Whether this request of `tool` is the divert's: the client declared the extension, or the
   * tool runs only diverted (then {@link divert} answers why it cannot run).
   */
  takes(tool: ToolEntry, sdk: ServerContext): boolean;
  /**
   * The call's answer when it is diverted, or `undefined` to run it as usual. Throws a protocol
   * error when the call cannot run (a task-only tool called without the extension). `caller` is
   * the operation context the tool's guards produced on this request.
   */
  divert(
    tool: ToolEntry,
    request: CallToolRequest,
    sdk: ServerContext,
    exchange: HttpExchange,
    caller: McpOperationContext,
  ): Promise<Record<string, unknown> | undefined>;
}

/**
 * A diverted call's answer, which goes out as it is: the SDK server does not validate it as a tool
 * result (which would add an empty `content` to a `CreateTaskResult`).
 * @internal
 */
export class DivertedCall {
  constructor(readonly result: Record<string, unknown>) {}
}

/** Whether `capabilities` (a client's) declare `extension`. */
function declares(capabilities: unknown, extension: string): boolean {
  const extensions = (capabilities as { extensions?: unknown } | null | undefined)?.extensions;
  return (
    extensions !== null &&
    typeof extensions === 'object' &&
    !Array.isArray(extensions) &&
    Object.hasOwn(extensions, extension)
  );
}

/**
 * The registered call diverts, filled while the module initializes.
 * @internal
 */
@Injectable()
export class McpCallDiverts {
  private readonly diverts: McpCallDivert[] = [];

  /** Adds a divert; each extension adds at most one. */
  add(divert: McpCallDivert): void {
    this.diverts.push(divert);
  }

  /** The divert that takes this request of `tool`, if any. */
  for(tool: ToolEntry, sdk: ServerContext): McpCallDivert | undefined {
    for (const divert of this.diverts)
      if (divert.appliesTo(tool) && divert.takes(tool, sdk)) return divert;
    return undefined;
  }

  /** Whether client `capabilities` declare an extension some divert answers for. */
  declaredBy(capabilities: unknown): boolean {
    for (const divert of this.diverts) if (declares(capabilities, divert.extension)) return true;
    return false;
  }
}
