import { Injectable } from '@nestjs/common';
import { DuplicateOperationError } from '../errors/duplicate-operation.error';
import type {
  RegisteredOperation,
  RegisteredPrompt,
  RegisteredResource,
  RegisteredTool,
} from './registered-operation.interface';

/**
 * Every MCP operation found at bootstrap, by kind and name. Read it to list what the server offers.
 *
 * @publicApi
 */
@Injectable()
export class McpOperationRegistry {
  private readonly tools = new Map<string, RegisteredTool>();
  private readonly prompts = new Map<string, RegisteredPrompt>();
  private readonly fixedResources = new Map<string, RegisteredResource>();
  private readonly templateResources = new Map<string, RegisteredResource>();

  /** @internal */
  register(operation: RegisteredOperation): void {
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
  }

  getTools(): RegisteredTool[] {
    return [...this.tools.values()];
  }

  getPrompts(): RegisteredPrompt[] {
    return [...this.prompts.values()];
  }

  getFixedResources(): RegisteredResource[] {
    return [...this.fixedResources.values()];
  }

  getTemplateResources(): RegisteredResource[] {
    return [...this.templateResources.values()];
  }

  findTool(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }

  findPrompt(name: string): RegisteredPrompt | undefined {
    return this.prompts.get(name);
  }

  /** The resource serving `uri`, with the template variables it matched (empty for fixed URIs). */
  findResource(
    uri: string,
  ): { resource: RegisteredResource; variables: Record<string, string> } | undefined {
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
  findTemplate(uriTemplate: string): RegisteredResource | undefined {
    return this.templateResources.get(uriTemplate);
  }

  private tableFor(operation: RegisteredOperation): Map<string, RegisteredOperation> {
    switch (operation.kind) {
      case 'tool':
        return this.tools as Map<string, RegisteredOperation>;
      case 'prompt':
        return this.prompts as Map<string, RegisteredOperation>;
      case 'resource':
        return (operation.template ? this.templateResources : this.fixedResources) as Map<
          string,
          RegisteredOperation
        >;
    }
  }
}
