import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { McpOperationRegistry } from '../../operations/discovery/mcp-operation.registry';
import { CHANGE_CHANNEL, type ChangeEvent, type ChangedList } from '../fleet/change-channel';
import { FleetBus } from '../fleet/fleet-bus';
import { ListenStreams } from './listen-streams';

/** The list whose clients hear of a change of an operation of a kind. */
const LIST_OF = { tool: 'tools', prompt: 'prompts', resource: 'resources' } as const;

/** An announcement that the definition of an operation registered at run time changed. */
export interface McpDefinitionChange {
  readonly kind: 'tool' | 'prompt' | 'resource';
  /** Its name, or a resource's URI or URI template. */
  readonly name: string;
}

/**
 * Announces changes to listening clients: the `subscriptions/listen` streams of 2026-07-28 clients
 * and the `GET` streams of 2025-era sessions, of this instance and — with the `redis` option — of
 * every instance sharing it.
 *
 * @example
 * ```ts
 * constructor(private readonly notifier: McpNotifier) {}
 * enableBetaTools() { this.flags.beta = true; this.notifier.toolsChanged(); }
 * ```
 * @publicApi
 */
@Injectable()
export class McpNotifier implements OnModuleInit, OnModuleDestroy {
  private readonly unsubscribe: (() => void)[] = [];
  private readonly definitionListeners = new Set<(change: McpDefinitionChange) => void>();
  /** Lists changed by run-time registrations since the last announcement (one per tick). */
  private readonly pendingHere = new Set<ChangedList>();

  /** Made by the module (inject it): its dependencies are the module's own. @internal */
  constructor(
    private readonly listenStreams: ListenStreams,
    private readonly fleet: FleetBus,
    private readonly registry: McpOperationRegistry,
  ) {}

  /** Nest's hook: follows the changes other instances of a fleet announce. */
  onModuleInit(): void {
    // Another instance's change reaches this instance's listen streams too.
    this.unsubscribe.push(
      this.fleet.subscribe(CHANGE_CHANNEL, (event, origin) => {
        if (origin !== 'remote') return;
        if (event.kind === 'definitionsChanged')
          this.toDefinitionListeners({ kind: event.operation, name: event.name });
        else this.toListenStreams(event);
      }),
      // Each instance registers its own run-time operations, so each tells its own clients.
      this.registry.onRuntimeChange((kind) => this.changedHere(LIST_OF[kind])),
    );
  }

  /** Nest's hook: stops following them. */
  onModuleDestroy(): void {
    for (const stop of this.unsubscribe.splice(0)) stop();
    this.definitionListeners.clear();
  }

  /**
   * Tells every other instance of the fleet (with the `redis` option) that the definition of an
   * operation registered at run time changed — registered, replaced or removed — so each registers
   * its own from where the application keeps its definitions (handlers are code: they cannot
   * travel). Listeners of {@link onDefinitionsChanged} on the other instances are called; this
   * instance's are not (it made the change). Without the `redis` option it does nothing.
   *
   * @example
   * ```ts
   * await this.definitions.save(definition); // the app's own store, shared by the fleet
   * await this.runtime.registerTool(definition, handler);
   * this.notifier.definitionsChanged({ kind: 'tool', name: definition.name });
   * ```
   */
  definitionsChanged(change: McpDefinitionChange): void {
    this.fleet.publish(CHANGE_CHANNEL, {
      kind: 'definitionsChanged',
      operation: change.kind,
      name: change.name,
    });
  }

  /**
   * Calls `listener` when another instance announces a changed definition
   * ({@link definitionsChanged}); answers how to stop. Delivery is at most once, over Redis
   * pub/sub: an instance that was away misses it, so read every definition when starting too.
   */
  onDefinitionsChanged(listener: (change: McpDefinitionChange) => void): () => void {
    this.definitionListeners.add(listener);
    return () => this.definitionListeners.delete(listener);
  }

  private toDefinitionListeners(change: McpDefinitionChange): void {
    for (const listener of this.definitionListeners) listener(change);
  }

  /**
   * Tells this instance's listen streams and 2025-era sessions that `list` changed, once per tick
   * however many registrations changed it (registering a thousand tools is one notification).
   */
  private changedHere(list: ChangedList): void {
    if (this.pendingHere.size === 0)
      setImmediate(() => {
        for (const changed of this.pendingHere) {
          const event: ChangeEvent = { kind: 'listChanged', list: changed };
          this.toListenStreams(event);
          this.fleet.deliverHere(CHANGE_CHANNEL, event);
        }
        this.pendingHere.clear();
      });
    this.pendingHere.add(list);
  }

  /** Sends `notifications/tools/list_changed` to streams that asked for tool changes. */
  toolsChanged(): void {
    this.announce({ kind: 'listChanged', list: 'tools' });
  }

  /** Sends `notifications/prompts/list_changed` to streams that asked for prompt changes. */
  promptsChanged(): void {
    this.announce({ kind: 'listChanged', list: 'prompts' });
  }

  /** Sends `notifications/resources/list_changed` to streams that asked for resource-list changes. */
  resourcesChanged(): void {
    this.announce({ kind: 'listChanged', list: 'resources' });
  }

  /** Sends `notifications/resources/updated` for `uri` to streams subscribed to it. */
  resourceUpdated(uri: string): void {
    this.announce({ kind: 'resourceUpdated', uri });
  }

  private announce(event: ChangeEvent): void {
    this.toListenStreams(event);
    this.fleet.publish(CHANGE_CHANNEL, event);
  }

  private toListenStreams(event: ChangeEvent): void {
    this.listenStreams.announce(event);
  }
}
