/** What the fleet bus is bounded by. @internal */
export interface NotificationOptions {
  /**
   * Longest message read from another instance on a fleet channel without a bound of its own: an
   * answer to a server-to-client request is at most one request body (`maxRequestBodyBytes`),
   * escaped once more inside the event, plus its framing.
   */
  readonly maxEventBytes: number;
}

/** Injection token of the resolved {@link NotificationOptions}. @internal */
export const NOTIFICATION_OPTIONS = Symbol('NotificationOptions');

/** The bus's bounds, from the endpoint's largest request body. @internal */
export function resolveNotificationOptions(maxRequestBodyBytes: number): NotificationOptions {
  // Room for the body twice over (JSON inside JSON escapes it) and the framing.
  return { maxEventBytes: maxRequestBodyBytes * 2 + 4_096 };
}
