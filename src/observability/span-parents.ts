import type { ObservedCall } from './observed-call';
import { OWN_ATTRIBUTES } from './mcp-semantic-conventions';
import { spanContextOf, valid, type SpanContextFields, type TraceApi } from './trace-context';
import type { TracingOptions } from './tracing-options';

/**
 * The part of `@opentelemetry/api` that parenting uses (`C` is its `Context`), declared here because
 * the published declarations must not name the optional peer.
 * @internal
 */
export interface ParentingApi<C> extends TraceApi<C> {
  readonly ROOT_CONTEXT: C;
  readonly context: { active(): C };
  readonly propagation: { extract(context: C, carrier: unknown): C };
  readonly trace: TraceApi<C>['trace'] & {
    setSpanContext(context: C, spanContext: SpanContextFields): C;
  };
}

/** A span link (OpenTelemetry's `Link`). @internal */
export interface SpanLink {
  readonly context: SpanContextFields;
  readonly attributes?: Record<string, string>;
}

/** What a request arrived with that may carry a trace context. @internal */
export interface ArrivedTraceContext {
  readonly meta: unknown;
  readonly headers: ObservedCall['headers'];
}

/**
 * The parent of a span of the module's, and its links: the trace context the client sent in
 * `_meta`, else in the HTTP headers, else (a retry without any) the flow's first round, else the
 * active context (an HTTP server span, when the app instruments HTTP). The flow's first round is
 * linked when it is not the parent, and so is the HTTP span when the client's `_meta` context
 * replaced it. With `tracing.roundParent: 'first-round'` a later round is always the first round's
 * child ({@link underFirstRound}).
 * @internal
 */
export function spanParentOf<C>(
  api: ParentingApi<C>,
  arrived: ArrivedTraceContext,
  flowTrace: string | undefined,
  how: { readonly taskStep: boolean; readonly roundParent: TracingOptions['roundParent'] },
): { parent: C; links: SpanLink[] } {
  const { meta, headers } = arrived;
  const active = api.context.active();
  const links: SpanLink[] = [];
  const flowContext = spanContextOf(api, flowTrace);
  if (flowContext && !how.taskStep && how.roundParent === 'first-round')
    return underFirstRound(api, active, flowContext, arrived);
  const fromMeta = hasTraceparent(meta)
    ? valid(api, api.propagation.extract(api.ROOT_CONTEXT, meta))
    : undefined;
  let parent = fromMeta;
  if (fromMeta) {
    const http = api.trace.getSpanContext(active);
    if (http && api.isSpanContextValid(http)) links.push({ context: http });
  } else if (headers.traceparent !== undefined)
    parent = valid(api, api.propagation.extract(active, headers));
  if (!parent && flowContext) {
    parent = api.trace.setSpanContext(active, flowContext);
    return { parent, links: [...links, flowLink(flowContext, how.taskStep)] };
  }
  if (flowContext) links.push(flowLink(flowContext, how.taskStep));
  return { parent: parent ?? active, links };
}

/**
 * `tracing.roundParent: 'first-round'`: a later round is a child of the flow's first round, and
 * the trace contexts it arrived with — the client's (`_meta`, else the header) and the active one
 * (an HTTP server span) — are links.
 */
function underFirstRound<C>(
  api: ParentingApi<C>,
  active: C,
  flowContext: SpanContextFields,
  { meta, headers }: ArrivedTraceContext,
): { parent: C; links: SpanLink[] } {
  const links: SpanLink[] = [];
  const client = hasTraceparent(meta)
    ? valid(api, api.propagation.extract(api.ROOT_CONTEXT, meta))
    : headers.traceparent !== undefined
      ? valid(api, api.propagation.extract(api.ROOT_CONTEXT, headers))
      : undefined;
  const clientContext = client && api.trace.getSpanContext(client);
  if (clientContext)
    links.push({ context: clientContext, attributes: { [OWN_ATTRIBUTES.link]: 'client' } });
  const http = api.trace.getSpanContext(active);
  if (http && api.isSpanContextValid(http) && http.spanId !== clientContext?.spanId)
    links.push({ context: http });
  links.push(flowLink(flowContext, false));
  return { parent: api.trace.setSpanContext(active, flowContext), links };
}

function hasTraceparent(meta: unknown): meta is Record<string, unknown> {
  return meta !== null && typeof meta === 'object' && 'traceparent' in meta;
}

function flowLink(context: SpanContextFields, taskStep: boolean): SpanLink {
  return {
    context,
    attributes: { [OWN_ATTRIBUTES.link]: taskStep ? 'creating_request' : 'flow_first_round' },
  };
}
