import { Injectable } from '@nestjs/common';
import { DuplicateOperationError } from '../../kit/errors/duplicate-operation.error';
import type {
  OperationEntry,
  PromptEntry,
  ResourceEntry,
  ToolEntry,
} from './operation-entry.interface';

/**
 * Every MCP operation found at bootstrap, by kind and name. Read it to list what the server offers.
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

  /** Changes whenever an operation is registered: what cached listings are checked against. @internal */
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
    const table = this.tableFor(operation);
    const existing = table.get(operation.name);
    if (existing) {
      throw new DuplicateOperationError(
        operation.kind,
        operation.name,
        existing.site,
        operation.site,
      );
    }
    table.set(operation.name, operation);
    this.registrations++;
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
