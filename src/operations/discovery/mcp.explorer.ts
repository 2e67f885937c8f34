import { Inject, Injectable, Logger, Optional, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, HttpAdapterHost, MetadataScanner, Reflector } from '@nestjs/core';
import {
  assertNestInternals,
  ExternalContextCreator,
  ROUTE_ARGS_METADATA,
  type InstanceWrapper,
} from '../../kit/nest-internals';
import { UriTemplate } from '@modelcontextprotocol/server';
import { McpParamtype } from '../../pipeline/mcp-paramtype.enum';
import {
  MCP_ENDPOINT,
  MCP_EXTENSION_MARK_METADATA,
  MCP_INPUT_DECLARATIONS_METADATA,
  MCP_OPERATION_METADATA,
} from '../../kit/mcp.constants';
import { CapabilityGatingInterceptor } from '../../pipeline/capability-gating.interceptor';
import { StateProtectionInterceptor } from '../../pipeline/state-protection.interceptor';
import { DISCOVERY_OPTIONS, type DiscoveryOptions } from './discovery.options';
import { NO_TOOL_TASK_SUPPORT, TOOL_TASK_SUPPORT, type ToolTaskSupport } from './tool-task-support';
import { McpExtensionMarks, type McpExtensionMark } from './extension-marks';
import { completionBody } from './completion-body';
import { operationProfile } from './operation-profile';
import { InvalidOperationDefinitionError } from '../../kit/errors/invalid-operation-definition.error';
import { validationGap, type ArgumentsParameter } from './validation-gap';
import {
  OperationPipelineFactory,
  type LibrarySteps,
} from '../../pipeline/operation-pipeline.factory';
import type { OperationCallProfile } from '../../pipeline/operation-call';
import type { McpInputDeclarationSpec } from '../../input/mcp-input-declaration';
import { McpRequestStateMode } from '../../input/mcp-request-state-mode.enum';
import type { McpOperationMetadata } from '../decorators/mcp-operation-options.interface';
import { isSchemaCandidate } from '../../pipeline/validation/dto-json-schema';
import { McpOperationRegistry } from './mcp-operation.registry';
import { promptListing, resourceListing, toolListing } from './operation-listing';
import type { OperationEntry } from './operation-entry.interface';
import { toolTaskProfile } from './tool-task-profile';
import { singleUseInMemoryWarning } from './single-use-store.warning';
import { ConsumedStateStore } from '../../request-state/stores/one-time/consumed-state-store.interface';
import { MemoryConsumedStateStore } from '../../request-state/stores/one-time/memory-consumed-state.store';
import { McpCoreEvents } from '../../options/mcp-core-events';
import { CallerPartitions } from '../../auth/identity/caller-partitions';
import { CallStartedGuard } from '../../pipeline/call-started.guard';

/**
 * Finds `@McpTool`, `@McpPrompt` and `@McpResource` methods and registers them with Nest-pipeline
 * handlers.
 * @internal
 */
@Injectable()
export class McpExplorer implements OnApplicationBootstrap {
  private readonly logger = new Logger('McpModule');
  private readonly pipelines: OperationPipelineFactory;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    contextCreator: ExternalContextCreator,
    private readonly registry: McpOperationRegistry,
    @Inject(DISCOVERY_OPTIONS) private readonly options: DiscoveryOptions,
    private readonly capabilityGating: CapabilityGatingInterceptor,
    private readonly stateProtection: StateProtectionInterceptor,
    @Inject(MCP_ENDPOINT) private readonly endpoint: string,
    private readonly adapterHost: HttpAdapterHost,
    @Inject(ConsumedStateStore) private readonly consumedStates: ConsumedStateStore,
    private readonly marks: McpExtensionMarks,
    private readonly coreEvents: McpCoreEvents,
    private readonly partitions: CallerPartitions,
    @Optional() @Inject(TOOL_TASK_SUPPORT) private readonly taskSupport?: ToolTaskSupport,
  ) {
    assertNestInternals(contextCreator);
    this.pipelines = new OperationPipelineFactory(contextCreator);
  }

  /**
   * The library steps an operation needs: argument validation, then capability gating and state
   * protection as the innermost interceptors. An operation that declares neither input nor state
   * gets neither interceptor: any input-required result it returns is refused as undeclared.
   */
  private libraryStepsFor(profile: OperationCallProfile): LibrarySteps {
    const inputAware =
      profile.declarations.length > 0 || profile.stateMode !== McpRequestStateMode.NONE;
    return {
      argumentsValidator: profile.argumentsValidator,
      interceptors: inputAware ? [this.capabilityGating, this.stateProtection] : [],
      startedGuard: this.startedGuard(),
    };
  }

  private callStarted: CallStartedGuard | undefined;

  /** A guard awaiting calls before they run, only while an observer asks for it (strict audit). */
  private startedGuard(): CallStartedGuard | undefined {
    if (!this.coreEvents.startsWatched) return undefined;
    this.callStarted ??= new CallStartedGuard(this.coreEvents, this.partitions);
    return this.callStarted;
  }

  onApplicationBootstrap(): void {
    for (const wrapper of [...this.discovery.getControllers(), ...this.discovery.getProviders()]) {
      this.exploreWrapper(wrapper);
    }
    this.registry.markExplored();
    this.logServed();
    const inMemory = this.consumedStates instanceof MemoryConsumedStateStore;
    const warning = singleUseInMemoryWarning(this.registry, inMemory);
    if (warning) this.logger.warn(warning);
  }

  private exploreWrapper(wrapper: InstanceWrapper): void {
    const instance = wrapper.instance as Record<string, unknown> | undefined;
    if (!instance || typeof instance !== 'object') return;
    const prototype = Object.getPrototypeOf(instance) as object | null;
    if (!prototype) return;
    for (const methodName of this.scanner.getAllMethodNames(prototype)) {
      const method = instance[methodName];
      if (typeof method !== 'function') continue;
      const mark = this.reflector.get<McpExtensionMark | undefined>(
        MCP_EXTENSION_MARK_METADATA,
        method,
      );
      if (mark) this.marks.check(`${wrapper.name}.${methodName}()`, mark);
      const metadata = this.reflector.get<McpOperationMetadata | undefined>(
        MCP_OPERATION_METADATA,
        method,
      );
      if (!metadata) continue;
      if (!wrapper.isDependencyTreeStatic()) {
        this.logger.warn(
          `${wrapper.name}.${methodName}() is not served: MCP operations must live in statically scoped providers`,
        );
        continue;
      }
      this.registry.register(this.buildOperation(instance, methodName, metadata));
    }
  }

  private buildOperation(
    instance: Record<string, unknown>,
    methodName: string,
    metadata: McpOperationMetadata,
  ): OperationEntry {
    const className = instance.constructor.name;
    const site = { className, methodName };
    const where = `${className}.${methodName}()`;
    const completers = 'complete' in metadata.options ? metadata.options.complete : undefined;
    const parameter = this.argumentsParameter(instance, methodName);
    const argsType = isSchemaCandidate(parameter.declaredType) ? parameter.declaredType : undefined;
    if (this.options.validateArguments) {
      const gap = validationGap(where, metadata, parameter);
      if (gap && this.options.failOnValidationGap)
        throw new InvalidOperationDefinitionError(where, `${gap} (validation.failOnGap)`);
      if (gap) this.logger.warn(gap);
    }
    const profile = operationProfile(
      where,
      metadata,
      (Reflect.getMetadata(MCP_INPUT_DECLARATIONS_METADATA, instance[methodName] as object) ??
        []) as McpInputDeclarationSpec[],
      argsType,
      this.options,
    );
    const common = {
      site,
      handler: this.pipelines.forMethod(instance, methodName, this.libraryStepsFor(profile)),
      // Lists run it to show only what a caller may call; task calls to decide whose a task is.
      guardsHandler: this.pipelines.forGuards(instance, methodName),
      completionHandler: completers
        ? this.pipelines.forMethodWith(instance, methodName, completionBody(where, completers))
        : undefined,
      profile,
    };
    switch (metadata.kind) {
      case 'tool': {
        const name = metadata.options.name ?? methodName;
        const task = toolTaskProfile(
          where,
          metadata.options,
          this.taskSupport ?? NO_TOOL_TASK_SUPPORT,
        );
        return {
          kind: 'tool',
          name,
          metadata,
          listing: toolListing(where, name, metadata.options, argsType),
          task,
          ...common,
        };
      }
      case 'prompt': {
        const name = metadata.options.name ?? methodName;
        return {
          kind: 'prompt',
          name,
          metadata,
          listing: promptListing(where, name, metadata.options, argsType),
          ...common,
        };
      }
      case 'resource': {
        const listing = resourceListing(
          where,
          metadata.options.name ?? methodName,
          metadata.options,
        );
        const template = metadata.options.uriTemplate
          ? new UriTemplate(metadata.options.uriTemplate)
          : undefined;
        const key = metadata.options.uri ?? (metadata.options.uriTemplate as string);
        return { kind: 'resource', name: key, metadata, listing, template, ...common };
      }
    }
  }

  /** The whole-arguments `@McpArgs()` parameter of a method, and its declared type. */
  private argumentsParameter(instance: object, methodName: string): ArgumentsParameter {
    const params = (Reflect.getMetadata(ROUTE_ARGS_METADATA, instance.constructor, methodName) ??
      {}) as Record<string, { index: number; data?: unknown }>;
    const argsParam = Object.entries(params).find(
      ([key, value]) => key.startsWith(`${McpParamtype.ARGS}:`) && value.data === undefined,
    );
    const types = Reflect.getMetadata('design:paramtypes', instance, methodName) as
      unknown[] | undefined;
    return {
      whole: argsParam !== undefined,
      declaredType: argsParam ? types?.[argsParam[1].index] : undefined,
      typesEmitted: types !== undefined,
    };
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
