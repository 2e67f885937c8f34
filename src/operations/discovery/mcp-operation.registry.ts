import { Injectable } from '@nestjs/common';
import { DuplicateOperationError } from '../../kit/errors/duplicate-operation.error';
import type {
  OperationEntry,
  PromptEntry,
  ResourceEntry,
  ToolEntry,
} from './operation-entry.interface';

/**
 * Every MCP operation served, by kind and name: those found at bootstrap, and those registered at
 * run time (`McpRuntimeOperations`). Read it to list what the server offers.
 *
 * @internal
 */
@Injectable()
export class McpOperationRegistry {
  private readonly tools = new Map<string, ToolEntry>();
  private readonly prompts = new Map<string, PromptEntry>();
  private readonly fixedResources = new Map<string, ResourceEntry>();
  private readonly templateResources = new Map<string, ResourceEntry>();
  private registrations = 0;
  private exploring = true;
  private readonly afterExploring: Array<() => void> = [];
  private readonly runtimeChanges = new Set<(kind: OperationEntry['kind']) => void>();

  /**
   * Changes whenever an operation is registered, replaced or removed: what cached listings are
   * checked against.
   * @internal
   */
  get generation(): number {
    return this.registrations;
  }

  /**
   * Runs `callback` once every operation is registered: at once when the explorer is done, else
   * when it is (both run at `onApplicationBootstrap`, whose order among providers Nest 11 and 12
   * do not agree on).
   * @internal
   */
  whenExplored(callback: () => void): void {
    if (!this.exploring) callback();
    else this.afterExploring.push(callback);
  }

  /**
   * Settles once every operation is registered. A provider of `McpModule` may await it in its
   * bootstrap hook only if it also injects `McpExplorer`: Nest 11 runs one module's bootstrap hooks
   * side by side (the await orders them), Nest 12 level by level in dependency order (the
   * injection puts the explorer's level first; awaiting without it never settles).
   * @internal
   */
  explored(): Promise<void> {
    return new Promise((resolve) => this.whenExplored(resolve));
  }

  /** Called by the explorer once it registered every operation. @internal */
  markExplored(): void {
    this.exploring = false;
    for (const callback of this.afterExploring.splice(0)) callback();
  }

  /** @internal */
  register(operation: OperationEntry): void {
    this.put(operation, () => false);
  }

  /**
   * Registers an operation defined at run time, or replaces the run-time one of its kind and name
   * (in place: a list cursor that names it still continues after it). One of the same kind and
   * name found at bootstrap is never replaced: that throws {@link DuplicateOperationError}.
   * @internal
   */
  registerRuntime(operation: OperationEntry): void {
    this.put(operation, (existing) => existing.runtime === true);
    this.changed(operation.kind);
  }

  /** Adds `operation` to its table; one of its name already there must be one `replaceable` allows. */
  private put(operation: OperationEntry, replaceable: (existing: OperationEntry) => boolean): void {
    const table = this.tableFor(operation);
    const existing = table.get(operation.name);
    if (existing && !replaceable(existing))
      throw new DuplicateOperationError(
        operation.kind,
        operation.name,
        existing.site,
        operation.site,
      );
    table.set(operation.name, operation);
    this.registrations++;
  }

  /**
   * Calls `listener` with the kind of every run-time registration, replacement or removal (what
   * tells clients that a list changed); answers how to stop.
   * @internal
   */
  onRuntimeChange(listener: (kind: OperationEntry['kind']) => void): () => void {
    this.runtimeChanges.add(listener);
    return () => this.runtimeChanges.delete(listener);
  }

  private changed(kind: OperationEntry['kind']): void {
    for (const listener of this.runtimeChanges) listener(kind);
  }

  /**
   * Removes the run-time operation of this kind and key (a tool or prompt name, a resource URI or
   * URI template); `false` when there is none (one found at bootstrap is never removed).
   * @internal
   */
  unregisterRuntime(kind: OperationEntry['kind'], key: string): boolean {
    const tables =
      kind === 'tool'
        ? [this.tools]
        : kind === 'prompt'
          ? [this.prompts]
          : [this.fixedResources, this.templateResources];
    for (const table of tables as Map<string, OperationEntry>[]) {
      const existing = table.get(key);
      if (!existing?.runtime) continue;
      table.delete(key);
      this.registrations++;
      this.changed(kind);
      return true;
    }
    return false;
  }

  getTools(): ToolEntry[] {
    return [...this.tools.values()];
  }

  getPrompts(): PromptEntry[] {
    return [...this.prompts.values()];
  }

  getFixedResources(): ResourceEntry[] {
    return [...this.fixedResources.values()];
  }

  getTemplateResources(): ResourceEntry[] {
    return [...this.templateResources.values()];
  }

  /** Every scope an operation declares, sorted: the default `scopes_supported`. @internal */
  declaredScopes(): string[] {
    const scopes = new Set<string>();
    for (const table of [this.tools, this.prompts, this.fixedResources, this.templateResources])
      for (const operation of table.values())
        for (const scope of operation.profile.scopes) scopes.add(scope);
    return [...scopes].sort();
  }

  findTool(name: string): ToolEntry | undefined {
    return this.tools.get(name);
  }

  findPrompt(name: string): PromptEntry | undefined {
    return this.prompts.get(name);
  }

  /** The resource serving `uri`, with the template variables it matched (empty for fixed URIs). */
  findResource(
    uri: string,
  ): { resource: ResourceEntry; variables: Record<string, string> } | undefined {
    const fixed = this.fixedResources.get(uri);
    if (fixed) return { resource: fixed, variables: {} };
    for (const resource of this.templateResources.values()) {
      const match = resource.template?.match(uri);
      if (match) {
        const variables = Object.fromEntries(
          Object.entries(match).map(([key, value]) => [
            key,
            Array.isArray(value) ? value.join(',') : value,
          ]),
        );
        return { resource, variables };
      }
    }
    return undefined;
  }

  /** The resource template registered under exactly this template string. */
  findTemplate(uriTemplate: string): ResourceEntry | undefined {
    return this.templateResources.get(uriTemplate);
  }

  private tableFor(operation: OperationEntry): Map<string, OperationEntry> {
    switch (operation.kind) {
      case 'tool':
        return this.tools as Map<string, OperationEntry>;
      case 'prompt':
        return this.prompts as Map<string, OperationEntry>;
      case 'resource':
        return (operation.template ? this.templateResources : this.fixedResources) as Map<
          string,
          OperationEntry
        >;
    }
  }
}
