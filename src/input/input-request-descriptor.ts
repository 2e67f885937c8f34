import type { ClientCapabilities } from '@modelcontextprotocol/server';
import type { McpInputResponse } from './mcp-input-response';
import type { McpInputRequestType } from './mcp-input-request-type';

type CapabilityTree = Record<string, unknown>;

/** Everything the module knows about one input request type, in one record. @internal */
export interface InputRequestDescriptor {
  /** The embedded JSON-RPC method the client performs. */
  readonly method: string;
  /** The client capability it needs, as a `ClientCapabilities` fragment. */
  readonly capability: ClientCapabilities;
  /** The kind of response that answers it. */
  readonly responseKind: McpInputResponse['kind'];
  /** Whether a client that declared `capabilities` can perform it. */
  isSupportedBy(capabilities: ClientCapabilities): boolean;
}

function declared(capabilities: ClientCapabilities, name: string): CapabilityTree | undefined {
  const value = (capabilities as CapabilityTree)[name];
  return value !== null && typeof value === 'object' ? (value as CapabilityTree) : undefined;
}

/** The descriptor of every input request type. @internal */
export const INPUT_REQUEST_DESCRIPTORS: Readonly<
  Record<McpInputRequestType, InputRequestDescriptor>
> = {
  'elicitation.form': {
    method: 'elicitation/create',
    capability: { elicitation: { form: {} } },
    responseKind: 'elicitation',
    // A bare `elicitation: {}` predates modes and means form support.
    isSupportedBy: (capabilities) => {
      const elicitation = declared(capabilities, 'elicitation');
      return (
        elicitation !== undefined &&
        (elicitation.form !== undefined || elicitation.url === undefined)
      );
    },
  },
  'elicitation.url': {
    method: 'elicitation/create',
    capability: { elicitation: { url: {} } },
    responseKind: 'elicitation',
    isSupportedBy: (capabilities) => declared(capabilities, 'elicitation')?.url !== undefined,
  },
  sampling: {
    method: 'sampling/createMessage',
    capability: { sampling: {} },
    responseKind: 'sampling',
    isSupportedBy: (capabilities) => declared(capabilities, 'sampling') !== undefined,
  },
  'sampling.tools': {
    method: 'sampling/createMessage',
    capability: { sampling: { tools: {} } },
    responseKind: 'sampling',
    isSupportedBy: (capabilities) => declared(capabilities, 'sampling')?.tools !== undefined,
  },
  roots: {
    method: 'roots/list',
    capability: { roots: {} },
    responseKind: 'roots',
    isSupportedBy: (capabilities) => declared(capabilities, 'roots') !== undefined,
  },
};

/** All input request types, for validation. @internal */
export const INPUT_REQUEST_TYPES = Object.keys(INPUT_REQUEST_DESCRIPTORS) as McpInputRequestType[];
