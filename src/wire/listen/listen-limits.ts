import { InvalidModuleOptionsError } from '../../kit/errors/invalid-module-options.error';
import { objectOption, positiveInteger } from '../../options/option-checks';

/**
 * Bounds on `subscriptions/listen` streams, which stay open until the client goes away.
 * @internal
 */
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

/** Injection token of the resolved {@link ListenLimits}. @internal */
export const LISTEN_LIMITS = Symbol('ListenLimits');

/** The `listen` options with defaults filled and bounds checked (names the bad option). @internal */
export function resolveListenLimits(
  limits: Partial<Record<keyof ListenLimits, unknown>> | undefined,
): ListenLimits {
  objectOption('listen', limits);
  const resolved = {
    maxStreams: positiveInteger('listen.maxStreams', limits?.maxStreams, 1000),
    maxStreamsPerCaller: positiveInteger(
      'listen.maxStreamsPerCaller',
      limits?.maxStreamsPerCaller,
      10,
    ),
    maxResourceSubscriptions: positiveInteger(
      'listen.maxResourceSubscriptions',
      limits?.maxResourceSubscriptions,
      100,
    ),
    maxUriLength: positiveInteger('listen.maxUriLength', limits?.maxUriLength, 2048),
  };
  if (resolved.maxStreamsPerCaller > resolved.maxStreams) {
    if (limits?.maxStreamsPerCaller !== undefined) {
      throw new InvalidModuleOptionsError(
        'listen.maxStreamsPerCaller',
        'must not exceed listen.maxStreams',
      );
    }
    resolved.maxStreamsPerCaller = resolved.maxStreams;
  }
  return resolved;
}
