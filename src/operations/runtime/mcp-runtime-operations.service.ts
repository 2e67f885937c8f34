import { Injectable, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { InvalidOperationDefinitionError } from '../../kit/errors/invalid-operation-definition.error';
import type { McpOperationKind } from '../../input/mcp-operation-kind';
import type {
  McpOperationMetadata,
  McpPromptOptions,
  McpResourceOptions,
  McpToolOptions,
} from '../decorators/mcp-operation-options.interface';
import { McpOperationRegistry } from '../discovery/mcp-operation.registry';
import { OperationEntryFactory } from '../discovery/operation-entry.factory';
import type { McpRuntimeDefinition, McpRuntimeHandler } from './mcp-runtime-definition.interface';
import { HOST_METHOD, runtimeOperationHost } from './runtime-operation-host';

/** A definition's own members that are not its decorator's options. */
const RUNTIME_MEMBERS = [
  'guards',
  'interceptors',
  'pipes',
  'filters',
  'decorators',
  'visibleTo',
] as const;

/**
 * Tools, prompts and resources registered and removed while the application runs — a tenant's
 * connectors kept in a database, a workspace's actions — beside the decorated ones. A registered
 * operation is built exactly as the explorer builds a decorated method (its own Nest handler:
 * global, method and the module's guards, interceptors, pipes and filters, argument validation,
 * capability gating, sealed state, replay, tasks, telemetry) and answers the same bytes; it is
 * listed after the decorated ones, by name, and `notifications/…/list_changed` goes to this
 * instance's listen streams and 2025-era sessions. Each instance of a fleet registers its own
 * (handlers are code): announce a change to the others with `McpNotifier.definitionsChanged()`
 * (see docs/runtime-operations.md).
 *
 * A definition's contract (name, schemas, declarations, state mode) is part of what sealed state
 * and task records bind: a flow continued after its operation was registered again with another
 * one is refused with `-32602 Invalid request state` before the handler runs; registered again
 * with the same one, it carries on.
 *
 * @example
 * ```ts
 * await this.runtime.registerTool(
 *   { name: 'acme_lookup', description: 'Looks up an order', inputSchema, visibleTo: isAcme },
 *   async ({ id }) => this.orders.find(String(id)),
 * );
 * this.runtime.unregisterTool('acme_lookup');
 * ```
 * @publicApi
 */
@Injectable()
export class McpRuntimeOperations {
  /**
   * The registration of each operation still resolving its enhancers, by its sequence number: an
   * earlier one gives way to a later registration or a removal asked for meanwhile.
   */
  private readonly latest = new Map<string, number>();
  private sequence = 0;
  private readonly enhancers = new Map<Type<unknown>, Promise<object>>();

  /** Made by the module (inject it): its dependencies are the module's own. @internal */
  constructor(
    private readonly registry: McpOperationRegistry,
    private readonly entries: OperationEntryFactory,
    private readonly moduleRef: ModuleRef,
  ) {}

  /**
   * Serves a tool (or replaces the one registered at run time under its name). Rejects with
   * `InvalidOperationDefinitionError` for a definition its decorator would refuse at startup, and
   * with `DuplicateOperationError` when a decorated tool has the name.
   */
  registerTool<Args = Record<string, unknown>>(
    definition: McpRuntimeDefinition<McpToolOptions & { name: string }>,
    handler: McpRuntimeHandler<Args>,
  ): Promise<void> {
    return this.register('tool', definition.name, definition, handler as McpRuntimeHandler<never>);
  }

  /** Serves a prompt (or replaces the one registered at run time under its name). */
  registerPrompt<Args = Record<string, string>>(
    definition: McpRuntimeDefinition<McpPromptOptions & { name: string }>,
    handler: McpRuntimeHandler<Args>,
  ): Promise<void> {
    return this.register(
      'prompt',
      definition.name,
      definition,
      handler as McpRuntimeHandler<never>,
    );
  }

  /**
   * Serves a resource at its `uri`, or a resource template at its `uriTemplate` (or replaces the
   * one registered at run time there). Its `name` defaults to the URI or template.
   */
  registerResource<Args = Record<string, string>>(
    definition: McpRuntimeDefinition<McpResourceOptions>,
    handler: McpRuntimeHandler<Args>,
  ): Promise<void> {
    const key = definition.uri ?? definition.uriTemplate;
    return this.register(
      'resource',
      key,
      { ...definition, name: definition.name ?? key },
      handler as McpRuntimeHandler<never>,
    );
  }

  /** Stops serving the tool registered at run time under `name`; `false` when there is none. */
  unregisterTool(name: string): boolean {
    return this.unregister('tool', name);
  }

  /** Stops serving the prompt registered at run time under `name`; `false` when there is none. */
  unregisterPrompt(name: string): boolean {
    return this.unregister('prompt', name);
  }

  /** Stops serving the resource (or template) registered at run time at `uri`; `false` when there is none. */
  unregisterResource(uri: string): boolean {
    return this.unregister('resource', uri);
  }

  private unregister(kind: McpOperationKind, key: string): boolean {
    this.latest.delete(`${kind} ${key}`);
    return this.registry.unregisterRuntime(kind, key);
  }

  private async register(
    kind: McpOperationKind,
    key: unknown,
    definition: McpRuntimeDefinition<object> & { name?: unknown },
    handler: McpRuntimeHandler<never>,
  ): Promise<void> {
    const where = `run-time ${kind} "${String(key)}"`;
    if (typeof key !== 'string' || key === '')
      throw new InvalidOperationDefinitionError(
        where,
        kind === 'resource' ? 'give a "uri" or a "uriTemplate"' : 'a "name" is required',
      );
    if (typeof handler !== 'function')
      throw new InvalidOperationDefinitionError(where, 'the handler must be a function');
    const slot = `${kind} ${key}`;
    const sequence = ++this.sequence;
    this.latest.set(slot, sequence);
    try {
      const host = await runtimeOperationHost(kind, where, definition, handler, (type) =>
        this.enhancer(type).catch((error: unknown) => {
          throw new InvalidOperationDefinitionError(
            where,
            `${type.name || 'an enhancer class'} could not be resolved through Nest's DI (provide it in a module, or pass an instance): ${error instanceof Error ? error.message : String(error)}`,
          );
        }),
      );
      const options = Object.fromEntries(
        Object.entries(definition).filter(
          ([member]) => !(RUNTIME_MEMBERS as readonly string[]).includes(member),
        ),
      );
      const entry = this.entries.build(
        host,
        HOST_METHOD,
        { kind, options } as McpOperationMetadata,
        where,
      );
      // A later registration or removal of the same operation was asked for meanwhile: it wins.
      if (this.latest.get(slot) !== sequence) return;
      this.registry.registerRuntime({
        ...entry,
        site: { className: 'McpRuntimeOperations', methodName: `register${capitalized(kind)}` },
        runtime: true,
        restricted: definition.visibleTo !== undefined,
      });
    } finally {
      if (this.latest.get(slot) === sequence) this.latest.delete(slot);
    }
  }

  /**
   * The instance of an enhancer class: the application's provider of it in any module, else one
   * made with its dependencies from the module's scope (once per class).
   */
  private enhancer(type: Type<unknown>): Promise<object> {
    let instance = this.enhancers.get(type);
    if (!instance) {
      instance = this.provided(type);
      this.enhancers.set(type, instance);
      instance.catch(() => this.enhancers.delete(type));
    }
    return instance;
  }

  private async provided(type: Type<unknown>): Promise<object> {
    try {
      return this.moduleRef.get(type, { strict: false }) as object;
    } catch {
      return this.moduleRef.create(type) as Promise<object>;
    }
  }
}

function capitalized(kind: string): string {
  return `${kind[0].toUpperCase()}${kind.slice(1)}`;
}
