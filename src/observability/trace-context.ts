/**
 * A span context's fields (OpenTelemetry's `SpanContext` has them): declared here, as is the part of
 * the API these helpers call, because the published declarations must not name the optional peer.
 * @internal
 */
export interface SpanContextFields {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
  readonly isRemote?: boolean;
}

/** The part of `@opentelemetry/api` these helpers call; `C` is its `Context`. @internal */
export interface TraceApi<C> {
  isSpanContextValid(context: SpanContextFields): boolean;
  readonly trace: { getSpanContext(context: C): SpanContextFields | undefined };
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A span context in W3C `traceparent` spelling (what a sealed state and a task record carry). @internal */
export function traceparentOf(context: SpanContextFields): string {
  return `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** The remote span context a `traceparent` spells, when it is a valid one. @internal */
export function spanContextOf<C>(
  api: TraceApi<C>,
  traceparent: string | undefined,
): SpanContextFields | undefined {
  const match = traceparent === undefined ? null : TRACEPARENT.exec(traceparent);
  if (!match) return undefined;
  const context: SpanContextFields = {
    traceId: match[1],
    spanId: match[2],
    traceFlags: parseInt(match[3], 16),
    isRemote: true,
  };
  return api.isSpanContextValid(context) ? context : undefined;
}

/** The context, when it holds a valid span context. @internal */
export function valid<C>(api: TraceApi<C>, context: C): C | undefined {
  const spanContext = api.trace.getSpanContext(context);
  return spanContext && api.isSpanContextValid(spanContext) ? context : undefined;
}
