import { fleetChannel } from './fleet-channel';

/** A list clients can be told changed. @internal */
export type ChangedList = 'tools' | 'prompts' | 'resources';

/**
 * What instances tell each other, and each tells itself, about what clients listen for: a list
 * that changed, a resource that was updated; and an application's announcement that the
 * definition of an operation registered at run time changed (what `McpNotifier` publishes).
 * @internal
 */
export type ChangeEvent =
  | { readonly kind: 'listChanged'; readonly list: ChangedList }
  | { readonly kind: 'resourceUpdated'; readonly uri: string }
  | {
      readonly kind: 'definitionsChanged';
      /** The kind of operation whose definition changed. */
      readonly operation: 'tool' | 'prompt' | 'resource';
      /** Its name, or a resource's URI or URI template. */
      readonly name: string;
    };

const LISTS: ReadonlySet<unknown> = new Set(['tools', 'prompts', 'resources']);
const OPERATION_KINDS: ReadonlySet<unknown> = new Set(['tool', 'prompt', 'resource']);
const MAX_URI_LENGTH = 65_536;

function isText(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_URI_LENGTH;
}

/** The change in `value` (another instance's message), or `undefined`. @internal */
export function decodeChangeEvent(value: unknown): ChangeEvent | undefined {
  const event = value as Record<string, unknown> | null;
  if (event === null || typeof event !== 'object') return undefined;
  switch (event.kind) {
    case 'listChanged':
      return LISTS.has(event.list)
        ? { kind: 'listChanged', list: event.list as ChangedList }
        : undefined;
    case 'resourceUpdated':
      return isText(event.uri) ? { kind: 'resourceUpdated', uri: event.uri } : undefined;
    case 'definitionsChanged':
      return OPERATION_KINDS.has(event.operation) && isText(event.name)
        ? {
            kind: 'definitionsChanged',
            operation: event.operation as 'tool' | 'prompt' | 'resource',
            name: event.name,
          }
        : undefined;
    default:
      return undefined;
  }
}

/**
 * The core's channel of the fleet bus: list changes and resource updates for the listening
 * clients of every instance (listen streams, 2025-era `GET` streams, stdio), and run-time
 * definition changes for the application's listeners.
 * @internal
 */
export const CHANGE_CHANNEL = fleetChannel<ChangeEvent>('changes', decodeChangeEvent, {
  publishing: {
    context: 'McpNotifier',
    restored: 'Change notifications reach the other instances again',
    failing: (reason) =>
      `Change notifications cannot reach the other instances (${reason}): list changes, resource updates and definition changes announced here are not heard elsewhere meanwhile`,
  },
});
