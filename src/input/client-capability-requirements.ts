import type { ClientCapabilities } from '@modelcontextprotocol/server';
import type { McpInputRequestType } from './mcp-input-request-type';

type CapabilityTree = Record<string, unknown>;

/** The client capability (as a `ClientCapabilities` fragment) each input request type needs. */
export function capabilityFor(type: McpInputRequestType): ClientCapabilities {
  switch (type) {
    case 'elicitation.form':
      return { elicitation: { form: {} } };
    case 'elicitation.url':
      return { elicitation: { url: {} } };
    case 'sampling':
      return { sampling: {} };
    case 'sampling.tools':
      return { sampling: { tools: {} } };
    case 'roots':
      return { roots: {} };
  }
}

/** Whether the client's declared capabilities cover an input request type. */
export function clientSupports(
  capabilities: ClientCapabilities,
  type: McpInputRequestType,
): boolean {
  const declared = capabilities as CapabilityTree;
  const elicitation = declared.elicitation as CapabilityTree | undefined;
  const sampling = declared.sampling as CapabilityTree | undefined;
  switch (type) {
    case 'elicitation.form':
      // A bare `elicitation: {}` predates modes and means form support.
      return (
        elicitation !== undefined &&
        (elicitation.form !== undefined || elicitation.url === undefined)
      );
    case 'elicitation.url':
      return elicitation?.url !== undefined;
    case 'sampling':
      return sampling !== undefined;
    case 'sampling.tools':
      return sampling?.tools !== undefined;
    case 'roots':
      return declared.roots !== undefined;
  }
}

/** Merges the capabilities of every unsupported type into one `requiredCapabilities` object. */
export function missingCapabilities(
  capabilities: ClientCapabilities,
  types: Iterable<McpInputRequestType>,
): ClientCapabilities | undefined {
  const missing: Record<string, CapabilityTree> = {};
  for (const type of types) {
    if (clientSupports(capabilities, type)) continue;
    for (const [name, fragment] of Object.entries(
      capabilityFor(type) as Record<string, CapabilityTree>,
    )) {
      missing[name] = { ...missing[name], ...fragment };
    }
  }
  return Object.keys(missing).length > 0 ? (missing as ClientCapabilities) : undefined;
}
