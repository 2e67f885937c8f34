import { clip } from '../../kit/clip';
import type { McpOperationRegistry } from './mcp-operation.registry';

/** Operations named in the warning; past it, how many more. */
const NAMED = 5;

/**
 * The startup warning for production (`NODE_ENV=production`) when single-use operations record
 * their consumed states in this process's memory: behind a load balancer, or after a restart, a
 * replay that reaches another process is accepted again. `undefined` when there is nothing to say.
 * @internal
 */
export function singleUseInMemoryWarning(
  registry: McpOperationRegistry,
  storeIsInMemory: boolean,
  environment: string | undefined = process.env.NODE_ENV,
): string | undefined {
  if (environment !== 'production' || !storeIsInMemory) return undefined;
  const names = [
    ...registry.getTools(),
    ...registry.getPrompts(),
    ...registry.getFixedResources(),
    ...registry.getTemplateResources(),
  ]
    .filter((entry) => entry.profile.singleUse)
    .map((entry) => `"${clip(entry.name, 64)}"`);
  if (names.length === 0) return undefined;
  const listed =
    names.length > NAMED
      ? `${names.slice(0, NAMED).join(', ')} and ${names.length - NAMED} more`
      : names.join(', ');
  return (
    `Single-use operations (${listed}) record consumed states in this process's memory: a replay ` +
    'that reaches another instance, or this one after a restart, is accepted again. Give every ' +
    'instance the same `redis` option (or a shared `requestState.consumedStateStore`) before serving them behind ' +
    'a load balancer.'
  );
}
