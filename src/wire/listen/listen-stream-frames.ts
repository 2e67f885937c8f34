import type { ChangeEvent } from '../fleet/change-channel';

/** The `_meta` key the SDK stamps every frame of a listen stream with. */
const SUBSCRIPTION_ID_KEY = 'io.modelcontextprotocol/subscriptionId';
/** The `_meta` key of the server's identity on a stream's final result. */
const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

/** The SSE comment the SDK writes to keep an idle stream's connection open. @internal */
export const KEEP_ALIVE_FRAME = ': keepalive\n\n';

/**
 * One change notification framed as the SDK frames it, less the subscription id: every stream
 * shares `head` and `tail`, and only its own JSON-encoded id goes between them.
 * @internal
 */
export interface NotificationFrame {
  /** What the frame says (the method, and the URI of an update): equal keys, equal frames. */
  readonly key: string;
  readonly head: string;
  readonly tail: string;
}

/** The listen filter's part that decides whether a stream gets a change event. @internal */
export interface ListenFilter {
  /** {@link ListenInterest} bits. */
  readonly interests: number;
  /** The followed resource URIs, when the stream follows any. */
  readonly uris: ReadonlySet<string> | undefined;
}

/** Bits of {@link ListenFilter.interests}. @internal */
export const ListenInterest = {
  tools: 1,
  prompts: 2,
  resources: 4,
} as const;

/** The notification method of a list-changed event. */
const LIST_CHANGED_METHODS = {
  tools: 'notifications/tools/list_changed',
  prompts: 'notifications/prompts/list_changed',
  resources: 'notifications/resources/list_changed',
} as const;

/**
 * The frame of a change event, or undefined for events that are not listen notifications.
 * @internal
 */
export function notificationFrameOf(event: ChangeEvent): NotificationFrame | undefined {
  if (event.kind === 'listChanged') return frameOf(LIST_CHANGED_METHODS[event.list], '');
  if (event.kind === 'resourceUpdated') {
    const uri = JSON.stringify(event.uri);
    return frameOf('notifications/resources/updated', `"uri":${uri},`, uri);
  }
  return undefined;
}

/** Whether a stream with this filter gets the event (the SDK's `listenFilterAccepts`). @internal */
export function filterAccepts(filter: ListenFilter, event: ChangeEvent): boolean {
  if (event.kind === 'resourceUpdated') return filter.uris?.has(event.uri) === true;
  if (event.kind !== 'listChanged') return false;
  return (filter.interests & ListenInterest[event.list]) !== 0;
}

/** The stream's final result, written when the server ends it (application shutdown). @internal */
export function closingFrameOf(idJson: string, serverInfo: unknown): string {
  const meta = `{"${SUBSCRIPTION_ID_KEY}":${idJson},"${SERVER_INFO_KEY}":${JSON.stringify(serverInfo)}}`;
  return `event: message\ndata: {"jsonrpc":"2.0","id":${idJson},"result":{"resultType":"complete","_meta":${meta}}}\n\n`;
}

function frameOf(method: string, params: string, about = ''): NotificationFrame {
  return {
    key: `${method} ${about}`,
    head: `event: message\ndata: {"jsonrpc":"2.0","method":"${method}","params":{${params}"_meta":{"${SUBSCRIPTION_ID_KEY}":`,
    tail: '}}}\n\n',
  };
}
