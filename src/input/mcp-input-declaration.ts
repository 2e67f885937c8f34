import type { ClientCapabilities } from '@modelcontextprotocol/server';
import { InvalidOperationDefinitionError } from '../kit/errors/invalid-operation-definition.error';
import { McpInputRequirement } from './mcp-input-requirement.enum';
import { INPUT_REQUEST_DESCRIPTORS, INPUT_REQUEST_TYPES } from './input-request-descriptor';
import { type McpInputRequestType } from './mcp-input-request-type';

/** The plain form of a declaration, as written in decorators. @publicApi */
export interface McpInputDeclarationSpec {
  type: McpInputRequestType;
  /** Default `CONDITIONAL`. */
  requirement?: McpInputRequirement | 'required' | 'conditional';
}

/**
 * An immutable statement that an operation may ask the client for one kind of input, and whether
 * the matching client capability is required up front or only when the request is emitted.
 *
 * @publicApi
 */
export class McpInputDeclaration {
  private constructor(
    /** The kind of input. */
    readonly type: McpInputRequestType,
    /** When the capability is checked. */
    readonly requirement: McpInputRequirement,
  ) {
    Object.freeze(this);
  }

  static elicitationForm(requirement = McpInputRequirement.CONDITIONAL): McpInputDeclaration {
    return new McpInputDeclaration('elicitation.form', requirement);
  }

  static elicitationUrl(requirement = McpInputRequirement.CONDITIONAL): McpInputDeclaration {
    return new McpInputDeclaration('elicitation.url', requirement);
  }

  static sampling(requirement = McpInputRequirement.CONDITIONAL): McpInputDeclaration {
    return new McpInputDeclaration('sampling', requirement);
  }

  static samplingWithTools(requirement = McpInputRequirement.CONDITIONAL): McpInputDeclaration {
    return new McpInputDeclaration('sampling.tools', requirement);
  }

  static roots(requirement = McpInputRequirement.CONDITIONAL): McpInputDeclaration {
    return new McpInputDeclaration('roots', requirement);
  }

  /** Validates a decorator spec and turns it into a declaration. */
  static fromSpec(spec: McpInputDeclarationSpec, site = 'declaration'): McpInputDeclaration {
    if (!INPUT_REQUEST_TYPES.includes(spec.type)) {
      throw new InvalidOperationDefinitionError(
        site,
        `unknown input request type "${String(spec.type)}" (${INPUT_REQUEST_TYPES.join(', ')})`,
      );
    }
    const requirement = spec.requirement ?? McpInputRequirement.CONDITIONAL;
    if (
      requirement !== McpInputRequirement.REQUIRED &&
      requirement !== McpInputRequirement.CONDITIONAL
    ) {
      throw new InvalidOperationDefinitionError(
        site,
        `requirement must be "required" or "conditional", got "${String(requirement)}"`,
      );
    }
    return new McpInputDeclaration(spec.type, requirement as McpInputRequirement);
  }

  /** The embedded JSON-RPC method (`elicitation/create`, `sampling/createMessage`, `roots/list`). */
  get method(): string {
    return INPUT_REQUEST_DESCRIPTORS[this.type].method;
  }

  /** The client capability this declaration needs. */
  get capability(): ClientCapabilities {
    return INPUT_REQUEST_DESCRIPTORS[this.type].capability;
  }
}
