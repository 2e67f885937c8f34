import { Injectable } from '@nestjs/common';
import { McpOperationRegistry } from '../../operations/discovery/mcp-operation.registry';
import type { OperationEntry } from '../../operations/discovery/operation-entry.interface';

/** Methods that show or open nothing but public operations to a caller without a token. */
const DISCOVERY_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
]);

/**
 * Which requests a caller without a bearer token may make when the resource server requires one:
 * none, unless an operation is `public` — then calls of public operations, discovery and the lists
 * (which show such a caller the public operations only), notifications and answers, and a 2025-era
 * session's stream and end (a session is its opener's; another caller's id is an unknown session).
 * @internal
 */
@Injectable()
export class AnonymousAccess {
  private publicOperations: boolean | undefined;
  private seenGeneration = -1;

  constructor(private readonly registry: McpOperationRegistry) {}

  /**
   * Whether a caller without a token may send `message` (undefined: a bodiless GET or DELETE), and
   * the scopes of the operation it calls (for the challenge when it may not).
   */
  of(message: unknown): { readonly allowed: boolean; readonly scopes?: readonly string[] } {
    const { method, params } = (message ?? {}) as { method?: unknown; params?: unknown };
    const target =
      typeof method === 'string'
        ? this.targetOf(method, (params ?? {}) as Record<string, unknown>)
        : undefined;
    return { allowed: this.allows(message, method, target), scopes: target?.profile.scopes };
  }

  private allows(message: unknown, method: unknown, target: OperationEntry | undefined): boolean {
    if (!this.anyPublic()) return false;
    if (message === undefined) return true;
    if (typeof method !== 'string') return isResponse(message); // to a server-to-client request
    if (method.startsWith('notifications/') || DISCOVERY_METHODS.has(method)) return true;
    return target?.profile.public === true;
  }

  /** Whether any operation is public (recomputed when operations are registered). */
  private anyPublic(): boolean {
    if (this.seenGeneration !== this.registry.generation) {
      this.seenGeneration = this.registry.generation;
      this.publicOperations = [
        ...this.registry.getTools(),
        ...this.registry.getPrompts(),
        ...this.registry.getFixedResources(),
        ...this.registry.getTemplateResources(),
      ].some((operation) => operation.profile.public);
    }
    return this.publicOperations === true;
  }

  private targetOf(method: string, params: Record<string, unknown>): OperationEntry | undefined {
    const name = params.name;
    const uri = params.uri;
    switch (method) {
      case 'tools/call':
        return typeof name === 'string' ? this.registry.findTool(name) : undefined;
      case 'prompts/get':
        return typeof name === 'string' ? this.registry.findPrompt(name) : undefined;
      case 'resources/read':
        return typeof uri === 'string' ? this.registry.findResource(uri)?.resource : undefined;
      case 'completion/complete': {
        const ref = (params.ref ?? {}) as { type?: unknown; name?: unknown; uri?: unknown };
        if (ref.type === 'ref/prompt' && typeof ref.name === 'string')
          return this.registry.findPrompt(ref.name);
        return typeof ref.uri === 'string' ? this.registry.findTemplate(ref.uri) : undefined;
      }
      default:
        return undefined;
    }
  }
}

/** A JSON-RPC response (one message, not a batch): what a client answers a server's request with. */
function isResponse(message: unknown): boolean {
  return (
    typeof message === 'object' &&
    message !== null &&
    !Array.isArray(message) &&
    ('result' in message || 'error' in message)
  );
}
