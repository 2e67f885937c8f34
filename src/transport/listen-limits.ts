/** Bounds on `subscriptions/listen` streams, which stay open until the client goes away. */
export interface ListenLimits {
  /** Listen streams open at once in this process. */
  maxStreams: number;
  /** Listen streams open at once for one caller (see `listenCallerKey`). */
  maxStreamsPerCaller: number;
  /** Resource URIs one stream may follow. */
  maxResourceSubscriptions: number;
  /** Longest followed resource URI, in UTF-16 code units. */
  maxUriLength: number;
}
