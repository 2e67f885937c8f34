import type {
  ListResourceTemplatesResult,
  Prompt,
  Resource,
  Tool,
  UriTemplate,
} from '@modelcontextprotocol/server';
import type { OperationSite } from '../../kit/errors/duplicate-operation.error';
import type { McpOperationMetadata } from '../decorators/mcp-operation-options.interface';
import type { OperationCallProfile } from '../../pipeline/operation-call';
import type { OperationHandler } from '../../pipeline/operation-pipeline.factory';
import type { ToolTaskProfile } from './tool-task-profile';

/** A `resources/templates/list` entry. @internal */
export type ResourceTemplateListing = ListResourceTemplatesResult['resourceTemplates'][number];

/** What every operation entry has, whatever its kind. @internal */
export interface OperationBase {
  readonly site: OperationSite;
  /** Runs a call of the operation through the Nest pipeline. */
  readonly handler: OperationHandler;
  /** Runs `completion/complete` for the operation's arguments under the same enhancers. */
  readonly completionHandler: OperationHandler | undefined;
  /** What the library's pipeline steps need to know about the operation. */
  readonly profile: OperationCallProfile;
  /**
   * Runs only the operation's guards (its scope check included): lists run it to show what a
   * caller may call, task calls to decide whose a task is before it is created, read, answered
   * or cancelled. Absent when no guard applies to the operation.
   */
  readonly guardsHandler: OperationHandler | undefined;
  /** Registered at run time (`McpRuntimeOperations`): listed after those found at bootstrap. */
  readonly runtime?: boolean;
  /**
   * It has a visibility predicate (`visibleTo`): its guards decide who sees it even where lists
   * are not filtered per caller (`auth.lists: 'public'`).
   */
  readonly restricted?: boolean;
}

/** @internal */
export interface ToolEntry extends OperationBase {
  readonly kind: 'tool';
  readonly name: string;
  readonly listing: Tool;
  readonly metadata: Extract<McpOperationMetadata, { kind: 'tool' }>;
  /** Whether and how its calls run as tasks. */
  readonly task: ToolTaskProfile;
}

/** @internal */
export interface PromptEntry extends OperationBase {
  readonly kind: 'prompt';
  readonly name: string;
  readonly listing: Prompt;
  readonly metadata: Extract<McpOperationMetadata, { kind: 'prompt' }>;
}

/** @internal */
export interface ResourceEntry extends OperationBase {
  readonly kind: 'resource';
  /** The fixed URI or the URI template. */
  readonly name: string;
  readonly listing: Resource | ResourceTemplateListing;
  /** Set for template resources. */
  readonly template: UriTemplate | undefined;
  readonly metadata: Extract<McpOperationMetadata, { kind: 'resource' }>;
}

/** @internal */
export type OperationEntry = ToolEntry | PromptEntry | ResourceEntry;
