import type { ClientCapabilities } from '@modelcontextprotocol/server';
import { INPUT_REQUEST_DESCRIPTORS } from './input-request-descriptor';
import type { McpInputRequestType } from './mcp-input-request-type';

type CapabilityTree = Record<string, unknown>;

/**
 * The client capability (as a `ClientCapabilities` fragment) each input request type needs.
 * @internal
 */
export function capabilityFor(type: McpInputRequestType): ClientCapabilities {
  return INPUT_REQUEST_DESCRIPTORS[type].capability;
}

/** Whether the client's declared capabilities cover an input request type. @internal */
export function clientSupports(
  capabilities: ClientCapabilities,
  type: McpInputRequestType,
): boolean {
  return INPUT_REQUEST_DESCRIPTORS[type].isSupportedBy(capabilities);
}

/**
 * Merges the capabilities of every unsupported type into one `requiredCapabilities` object.
 * @internal
 */
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
