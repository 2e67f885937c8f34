import type { CreateMessageRequestParams } from '@modelcontextprotocol/server';
import { frozenCopy } from '../kit/deep-freeze';
import { validateElicitationUrlShape } from './elicitation-url.policy';
import { validateFormSchema } from './form-schema.validator';
import { InvalidInputRequestError } from './invalid-input-request.error';
import type { McpInputDeclaration } from './mcp-input-declaration';
import { INPUT_REQUEST_DESCRIPTORS } from './input-request-descriptor';
import type { McpInputRequestType } from './mcp-input-request-type';

/** Parameters of a form elicitation. @publicApi */
export interface ElicitFormParams {
  message: string;
  /** A flat object schema of primitive properties; see `docs/input-requests.md`. */
  requestedSchema: object;
}

/** Parameters of a URL elicitation. @publicApi */
export interface ElicitUrlParams {
  message: string;
  /** An https URL with an opaque handle; no userinfo or secrets. */
  url: string;
}

/** Parameters of a sampling request. @publicApi */
export type CreateMessageParams = Omit<CreateMessageRequestParams, '_meta' | 'task'>;

function requireMessage(message: unknown): void {
  if (typeof message !== 'string' || message.trim() === '') {
    throw new InvalidInputRequestError('An elicitation needs a non-empty "message"');
  }
}

function validateSampling(params: CreateMessageParams): void {
  if (!Array.isArray(params.messages) || params.messages.length === 0) {
    throw new InvalidInputRequestError('A sampling request needs at least one message');
  }
  for (const message of params.messages) {
    if (
      (message.role !== 'user' && message.role !== 'assistant') ||
      message.content === undefined
    ) {
      throw new InvalidInputRequestError(
        'Each sampling message needs role "user" or "assistant" and content',
      );
    }
  }
  if (!Number.isSafeInteger(params.maxTokens) || params.maxTokens <= 0) {
    throw new InvalidInputRequestError('A sampling request needs an integer "maxTokens" > 0');
  }
}

/**
 * One request the server asks the client to perform (an elicitation, a sampling, a roots listing),
 * embedded in an `input_required` result under a key. Immutable; build it with the static
 * factories, which check the protocol shape; the module checks its safety policy when
 * an operation emits the request.
 *
 * @publicApi
 */
export class McpInputRequest {
  private constructor(
    /** The declared kind this request belongs to. */
    readonly type: McpInputRequestType,
    /** Its parameters, as sent. */
    readonly params: Readonly<Record<string, unknown>>,
  ) {
    Object.freeze(this);
  }

  /** The embedded JSON-RPC method. */
  get method(): string {
    return INPUT_REQUEST_DESCRIPTORS[this.type].method;
  }

  /**
   * Asks the user to fill a form. Refuses nested schemas here; a form whose fields ask for a
   * secret is refused by the module's safety policy when the operation emits it.
   */
  static elicitForm(params: ElicitFormParams): McpInputRequest {
    requireMessage(params.message);
    validateFormSchema(params.requestedSchema);
    return new McpInputRequest(
      'elicitation.form',
      frozenCopy({
        mode: 'form',
        message: params.message,
        requestedSchema: params.requestedSchema,
      }),
    );
  }

  /**
   * Sends the user to a URL (sign-in, payment, consent) the server controls. The module's safety
   * policy (https, no credentials in the URL) is checked when the operation emits it.
   */
  static elicitUrl(params: ElicitUrlParams): McpInputRequest {
    requireMessage(params.message);
    validateElicitationUrlShape(params.url);
    return new McpInputRequest(
      'elicitation.url',
      // 2026-07-28 dropped `elicitationId` (and the completion notification it keyed).
      frozenCopy({ mode: 'url', message: params.message, url: params.url }),
    );
  }

  /** Asks the client's model for a completion; offering `tools` or `toolChoice` needs `sampling.tools`. */
  static createMessage(params: CreateMessageParams): McpInputRequest {
    validateSampling(params);
    const withTools =
      (params as { tools?: unknown }).tools !== undefined ||
      (params as { toolChoice?: unknown }).toolChoice !== undefined;
    return new McpInputRequest(
      withTools ? 'sampling.tools' : 'sampling',
      frozenCopy({ ...params }) as Record<string, unknown>,
    );
  }

  /** Asks the client for its roots. */
  static listRoots(): McpInputRequest {
    return new McpInputRequest('roots', Object.freeze({}));
  }

  /** Builds a request of a declaration's type from raw parameters, with the same checks. */
  static fromDeclaration(
    declaration: McpInputDeclaration,
    params: Record<string, unknown>,
  ): McpInputRequest {
    switch (declaration.type) {
      case 'elicitation.form':
        return McpInputRequest.elicitForm(params as unknown as ElicitFormParams);
      case 'elicitation.url':
        return McpInputRequest.elicitUrl(params as unknown as ElicitUrlParams);
      case 'sampling':
      case 'sampling.tools': {
        const request = McpInputRequest.createMessage(params as unknown as CreateMessageParams);
        if (request.type !== declaration.type) {
          throw new InvalidInputRequestError(
            `Parameters do not match a "${declaration.type}" declaration`,
          );
        }
        return request;
      }
      case 'roots':
        return McpInputRequest.listRoots();
    }
  }

  /** The wire form inside `inputRequests`. */
  toJSON(): { method: string; params: Readonly<Record<string, unknown>> } {
    return { method: this.method, params: this.params };
  }
}
