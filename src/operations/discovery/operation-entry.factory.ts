import { Inject, Injectable, Logger, Optional, type Type } from '@nestjs/common';
import { UriTemplate } from '@modelcontextprotocol/server';
import {
  assertNestInternals,
  ExternalContextCreator,
  ROUTE_ARGS_METADATA,
} from '../../kit/nest-internals';
import { MCP_INPUT_DECLARATIONS_METADATA } from '../../kit/mcp.constants';
import { InvalidOperationDefinitionError } from '../../kit/errors/invalid-operation-definition.error';
import type { McpInputDeclarationSpec } from '../../input/mcp-input-declaration';
import { McpRequestStateMode } from '../../input/mcp-request-state-mode.enum';
import { CapabilityGatingInterceptor } from '../../pipeline/capability-gating.interceptor';
import { McpParamtype } from '../../pipeline/mcp-paramtype.enum';
import type { OperationCallProfile } from '../../pipeline/operation-call';
import {
  OperationPipelineFactory,
  type LibrarySteps,
} from '../../pipeline/operation-pipeline.factory';
import { StateProtectionInterceptor } from '../../pipeline/state-protection.interceptor';
import { McpCoreEvents } from '../../options/mcp-core-events';
import { CallerPartitions } from '../../auth/identity/caller-partitions';
import { CallStartedGuard } from '../../pipeline/call-started.guard';
import { isSchemaCandidate } from '../../pipeline/validation/dto-json-schema';
import type { McpOperationMetadata } from '../decorators/mcp-operation-options.interface';
import { completionBody } from './completion-body';
import { DISCOVERY_OPTIONS, type DiscoveryOptions } from './discovery.options';
import { operationDefinitionDigest, type OperationContract } from './operation-definition';
import type { OperationBase, OperationEntry } from './operation-entry.interface';
import { inputJsonSchema, promptListing, resourceListing, toolListing } from './operation-listing';
import { operationProfile } from './operation-profile';
import { toolTaskProfile } from './tool-task-profile';
import { NO_TOOL_TASK_SUPPORT, TOOL_TASK_SUPPORT, type ToolTaskSupport } from './tool-task-support';
import { validationGap, type ArgumentsParameter } from './validation-gap';

/** An entry without what every kind has: its kind's own members. */
type ServedEntry = OperationEntry extends infer E
  ? E extends OperationEntry
    ? Omit<E, keyof OperationBase>
    : never
  : never;

/**
 * Builds the registry entry of one operation method — its listing, its profile, the digest of its
 * definition and its Nest-pipeline handlers — the same way for a decorated method the explorer
 * found and for an operation registered at run time (`McpRuntimeOperations`), so both run exactly
 * the same pipeline and answer the same bytes.
 * @internal
 */
@Injectable()
export class OperationEntryFactory {
  private readonly logger = new Logger('McpModule');
  private readonly pipelines: OperationPipelineFactory;

  constructor(
    contextCreator: ExternalContextCreator,
    @Inject(DISCOVERY_OPTIONS) private readonly options: DiscoveryOptions,
    private readonly capabilityGating: CapabilityGatingInterceptor,
    private readonly stateProtection: StateProtectionInterceptor,
    private readonly coreEvents: McpCoreEvents,
    private readonly partitions: CallerPartitions,
    @Optional() @Inject(TOOL_TASK_SUPPORT) private readonly taskSupport?: ToolTaskSupport,
  ) {
    assertNestInternals(contextCreator);
    this.pipelines = new OperationPipelineFactory(contextCreator);
  }

  private callStarted: CallStartedGuard | undefined;

  /** A guard awaiting calls before they run, only while an observer asks for it (strict audit). */
  private startedGuard(): CallStartedGuard | undefined {
    if (!this.coreEvents.startsWatched) return undefined;
    this.callStarted ??= new CallStartedGuard(this.coreEvents, this.partitions);
    return this.callStarted;
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

  /**
   * The entry of `instance[methodName]`, served as `metadata` says. `where` names it in errors
   * and warnings (default `Class.method()`).
   */
  build(
    instance: Record<string, unknown>,
    methodName: string,
    metadata: McpOperationMetadata,
    where = `${instance.constructor.name}.${methodName}()`,
  ): OperationEntry {
    const site = { className: instance.constructor.name, methodName };
    const completers = 'complete' in metadata.options ? metadata.options.complete : undefined;
    const parameter = this.argumentsParameter(instance, methodName);
    const argsType = isSchemaCandidate(parameter.declaredType) ? parameter.declaredType : undefined;
    if (this.options.validateArguments) {
      const gap = validationGap(where, metadata, parameter);
      if (gap && this.options.failOnValidationGap)
        throw new InvalidOperationDefinitionError(where, `${gap} (validation.failOnGap)`);
      if (gap) this.logger.warn(gap);
    }
    const declared = operationProfile(
      where,
      metadata,
      (Reflect.getMetadata(MCP_INPUT_DECLARATIONS_METADATA, instance[methodName] as object) ??
        []) as McpInputDeclarationSpec[],
      argsType,
      this.options,
    );
    const served = this.served(where, methodName, metadata, argsType);
    const profile: OperationCallProfile = {
      ...declared,
      definition: operationDefinitionDigest({ ...served.contract, profile: declared }),
    };
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
    return { ...served.entry, ...common } as OperationEntry;
  }

  /** What the operation serves: its kind, name, listing (and task support), and its contract. */
  private served(
    where: string,
    methodName: string,
    metadata: McpOperationMetadata,
    argsType: Type<unknown> | undefined,
  ): { entry: ServedEntry; contract: Omit<OperationContract, 'profile'> } {
    switch (metadata.kind) {
      case 'tool': {
        const name = metadata.options.name ?? methodName;
        const task = toolTaskProfile(
          where,
          metadata.options,
          this.taskSupport ?? NO_TOOL_TASK_SUPPORT,
        );
        const listing = toolListing(where, name, metadata.options, argsType);
        return {
          entry: { kind: 'tool', name, metadata, listing, task },
          contract: {
            kind: 'tool',
            key: name,
            input: listing.inputSchema,
            output: listing.outputSchema,
            task,
          },
        };
      }
      case 'prompt': {
        const name = metadata.options.name ?? methodName;
        const listing = promptListing(where, name, metadata.options, argsType);
        const input = metadata.options.input ?? argsType;
        return {
          entry: { kind: 'prompt', name, metadata, listing },
          contract: {
            kind: 'prompt',
            key: name,
            input: input ? inputJsonSchema(where, input) : (listing.arguments ?? null),
            output: undefined,
            task: undefined,
          },
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
        return {
          entry: { kind: 'resource', name: key, metadata, listing, template },
          contract: { kind: 'resource', key, input: undefined, output: undefined, task: undefined },
        };
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
}
