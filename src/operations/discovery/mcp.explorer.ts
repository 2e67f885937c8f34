import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, HttpAdapterHost, MetadataScanner, Reflector } from '@nestjs/core';
import {
  MCP_ENDPOINT,
  MCP_EXTENSION_MARK_METADATA,
  MCP_OPERATION_METADATA,
} from '../../kit/mcp.constants';
import { discoveredMethods, type DiscoveredMethod } from './discovered-methods';
import { McpExtensionMarks, type McpExtensionMark } from './extension-marks';
import type { McpOperationMetadata } from '../decorators/mcp-operation-options.interface';
import { McpOperationRegistry } from './mcp-operation.registry';
import { OperationEntryFactory } from './operation-entry.factory';
import { singleUseInMemoryWarning } from './single-use-store.warning';
import { ConsumedStateStore } from '../../request-state/stores/one-time/consumed-state-store.interface';
import { MemoryConsumedStateStore } from '../../request-state/stores/one-time/memory-consumed-state.store';

/**
 * Finds `@McpTool`, `@McpPrompt` and `@McpResource` methods and registers them with Nest-pipeline
 * handlers.
 * @internal
 */
@Injectable()
export class McpExplorer implements OnApplicationBootstrap {
  private readonly logger = new Logger('McpModule');

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly registry: McpOperationRegistry,
    private readonly entries: OperationEntryFactory,
    @Inject(MCP_ENDPOINT) private readonly endpoint: string,
    private readonly adapterHost: HttpAdapterHost,
    @Inject(ConsumedStateStore) private readonly consumedStates: ConsumedStateStore,
    private readonly marks: McpExtensionMarks,
  ) {}

  onApplicationBootstrap(): void {
    for (const found of discoveredMethods(this.discovery, this.scanner)) this.exploreMethod(found);
    this.registry.markExplored();
    this.logServed();
    const inMemory = this.consumedStates instanceof MemoryConsumedStateStore;
    const warning = singleUseInMemoryWarning(this.registry, inMemory);
    if (warning) this.logger.warn(warning);
  }

  private exploreMethod({ wrapper, instance, methodName, method }: DiscoveredMethod): void {
    const mark = this.reflector.get<McpExtensionMark | undefined>(
      MCP_EXTENSION_MARK_METADATA,
      method,
    );
    if (mark) this.marks.check(`${wrapper.name}.${methodName}()`, mark);
    const metadata = this.reflector.get<McpOperationMetadata | undefined>(
      MCP_OPERATION_METADATA,
      method,
    );
    if (!metadata) return;
    if (!wrapper.isDependencyTreeStatic()) {
      this.logger.warn(
        `${wrapper.name}.${methodName}() is not served: MCP operations must live in statically scoped providers`,
      );
      return;
    }
    this.registry.register(this.entries.build(instance, methodName, metadata));
  }

  /** One line at startup: what is served where, so a provider left out of a module shows. */
  private logServed(): void {
    const resources = this.registry.getFixedResources().length;
    const templates = this.registry.getTemplateResources().length;
    const adapter = this.adapterHost.httpAdapter?.getType() ?? 'no HTTP adapter';
    this.logger.log(
      `Serving MCP at ${this.endpoint} (${adapter}): ${count(this.registry.getTools().length, 'tool')}, ` +
        `${count(this.registry.getPrompts().length, 'prompt')}, ${count(resources + templates, 'resource')}` +
        (templates > 0 ? ` (${templates} of them templates)` : ''),
    );
  }
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
