import type {
  ListResourceTemplatesResult,
  Prompt,
  Resource,
  Tool,
  UriTemplate,
} from '@modelcontextprotocol/server';
import type { OperationSite } from '../errors/duplicate-operation.error';
import type { McpOperationMetadata } from '../interfaces/mcp-operation-options.interface';
import type { McpRequestContext } from '../interfaces/mcp-request-context.interface';
import type { McpInputDeclaration } from '../input/mcp-input-declaration';
import type { McpRequestStateMode } from '../state/mcp-request-state-mode.enum';

/** A `resources/templates/list` entry. */
export type ResourceTemplateListing = ListResourceTemplatesResult['resourceTemplates'][number];

/** Invokes an operation through the Nest pipeline. */
export type OperationHandler = (
  args: Record<string, unknown>,
  context: McpRequestContext,
) => Promise<unknown>;

interface OperationBase {
  readonly site: OperationSite;
  readonly handler: OperationHandler;
  /** What the operation may ask the client for. */
  readonly declarations: readonly McpInputDeclaration[];
  readonly stateMode: McpRequestStateMode;
}

export interface RegisteredTool extends OperationBase {
  readonly kind: 'tool';
  readonly name: string;
  readonly listing: Tool;
  readonly metadata: Extract<McpOperationMetadata, { kind: 'tool' }>;
}

export interface RegisteredPrompt extends OperationBase {
  readonly kind: 'prompt';
  readonly name: string;
  readonly listing: Prompt;
  readonly metadata: Extract<McpOperationMetadata, { kind: 'prompt' }>;
}

export interface RegisteredResource extends OperationBase {
  readonly kind: 'resource';
  /** The fixed URI or the URI template. */
  readonly name: string;
  readonly listing: Resource | ResourceTemplateListing;
  /** Set for template resources. */
  readonly template: UriTemplate | undefined;
  readonly metadata: Extract<McpOperationMetadata, { kind: 'resource' }>;
}

export type RegisteredOperation = RegisteredTool | RegisteredPrompt | RegisteredResource;
