import type { Context, SpanContext } from '@opentelemetry/api';
import type * as OpenTelemetryApi from '@opentelemetry/api';

/** `@opentelemetry/api`; only type-imported, so nothing loads it unless the app installed it. */
type OpenTelemetry = typeof OpenTelemetryApi;

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A span context in W3C `traceparent` spelling (what a sealed state and a task record carry). */
/** @internal */
export function traceparentOf(context: SpanContext): string {
  return `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** The remote span context a `traceparent` spells, when it is a valid one. */
/** @internal */
export function spanContextOf(
  api: OpenTelemetry,
  traceparent: string | undefined,
): SpanContext | undefined {
  const match = traceparent === undefined ? null : TRACEPARENT.exec(traceparent);
  if (!match) return undefined;
  const context: SpanContext = {
    traceId: match[1],
    spanId: match[2],
    traceFlags: parseInt(match[3], 16),
    isRemote: true,
  };
  return api.isSpanContextValid(context) ? context : undefined;
}

/** The context, when it holds a valid span context. @internal */
export function valid(api: OpenTelemetry, context: Context): Context | undefined {
  const spanContext = api.trace.getSpanContext(context);
  return spanContext && api.isSpanContextValid(spanContext) ? context : undefined;
}
