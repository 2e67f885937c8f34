import { Inject, Injectable } from '@nestjs/common';
import type {
  Context,
  Link,
  MeterProvider,
  Span,
  SpanContext,
  Tracer,
  TracerProvider,
} from '@opentelemetry/api';
import type * as OpenTelemetryApi from '@opentelemetry/api';
import { PACKAGE_VERSION } from '../util/package-version';
import { McpFlowEvents } from './mcp-flow-events.service';
import { MCP_SEMCONV, OWN_ATTRIBUTES } from './mcp-semantic-conventions';
import { INSTRUMENTATION_SCOPE, instrumentsOf, type Instruments } from './mcp-instruments';
import { countRound, flowEnded, flowStarted } from './flow-metrics';
import { loadOpenTelemetry } from './open-telemetry.loader';
import { TRACING_OPTIONS, type TracingOptions } from './tracing-options';
import { requestAttributes, spanName, startAttributes, type AttributeMap } from './span-attributes';
import { spanContextOf, traceparentOf, valid } from './trace-context';
import type { ObservedCall, ObservedRound } from './observed-call';
import type {
  ClientRequestOutcome,
  ObservedClientRequest,
  ObservedRequest,
} from './observed-request';

/** Where `@opentelemetry/api` 1.x keeps its global providers (one registry per major version). */
const OPEN_TELEMETRY_REGISTRY = Symbol.for('opentelemetry.js.api.1');

interface OpenTelemetryRegistry {
  readonly trace?: unknown;
  readonly metrics?: unknown;
}

/** `@opentelemetry/api`; only type-imported, so nothing loads it unless the app installed it. */
type OpenTelemetry = typeof OpenTelemetryApi;

/** One observed call between its start and its end. @internal */
export interface CallObservation {
  /** Runs `work` with the call's span active, so the application's own spans nest under it. */
  within<T>(work: () => Promise<T>): Promise<T>;
  end(round: ObservedRound): void;
}

/** One observed request that runs no operation, between its start and its end. @internal */
export interface RequestObservation {
  within<T>(work: () => Promise<T>): Promise<T>;
  /**
   * `errorType`: the JSON-RPC code of the error it was answered with; `sessionId`: the 2025-era
   * session it opened (an `initialize`).
   */
  end(errorType?: string, sessionId?: string): void;
}

/** One server-to-client request between its sending and its answer. @internal */
export interface ClientRequestObservation {
  end(outcome: ClientRequestOutcome, errorType?: string): void;
}

/**
 * The module's spans, metrics and flow events, through `@opentelemetry/api` when the application
 * installed it and registered a tracer or meter provider, and through {@link McpFlowEvents} when
 * someone subscribed. When none of that is there, {@link observing} is false and a call costs one
 * check: no span, no attributes, no allocation.
 * @internal
 */
@Injectable()
export class McpTelemetry {
  private readonly api = loadOpenTelemetry() as OpenTelemetry | undefined;
  private readonly noopTracerProvider: TracerProvider | undefined = this.api
    ? new this.api.ProxyTracerProvider().getDelegate()
    : undefined;
  private seenTracerProvider: TracerProvider | undefined;
  private tracer: Tracer | undefined;
  private seenMeterProvider: MeterProvider | undefined;
  private instruments: Instruments | undefined;

  constructor(
    private readonly events: McpFlowEvents,
    @Inject(TRACING_OPTIONS) private readonly tracing: TracingOptions,
  ) {}

  /** Whether a call is worth observing: a tracer or meter provider, or an event subscriber. */
  observing(): boolean {
    if (this.events.observed) return true;
    // The API's own registry of global providers: when it holds neither, nothing is registered and
    // one property read says so (the API's getters cost far more, on every call).
    const registry = (globalThis as Record<symbol, OpenTelemetryRegistry | undefined>)[
      OPEN_TELEMETRY_REGISTRY
    ];
    if (registry === undefined || (registry.trace === undefined && registry.metrics === undefined))
      return false;
    return this.tracerProvider() !== undefined || this.metrics() !== undefined;
  }

  /** Starts observing a call; call only when {@link observing}. */
  begin(call: ObservedCall): CallObservation {
    const started = performance.now();
    const api = this.api;
    const { span, spanContext } = this.startSpan(
      spanName(call),
      call.taskStep ? 'internal' : 'server',
      startAttributes(call),
      { meta: call.meta, headers: call.headers },
      call.taskStep ? call.taskStep.trace : call.claimedFlowTrace,
      call.taskStep !== undefined,
    );
    return {
      within: (work) => (api && spanContext ? api.context.with(spanContext, work) : work()),
      end: (round) => {
        const seconds = (performance.now() - started) / 1000;
        if (api && span) endSpan(api, span, round);
        const instruments = this.metrics();
        if (instruments) countRound(instruments, call, round, seconds);
        if (this.events.observed)
          this.events.emit({
            kind: 'round',
            flowId: round.flowId,
            method: call.method,
            target: call.target,
            round: round.round,
            outcome: round.outcome,
            flowStarted: flowStarted(round),
            flowEnded: flowEnded(round),
            ...(round.rejection && { rejection: round.rejection }),
            ...(round.errorType !== undefined && { errorType: round.errorType }),
            durationSeconds: seconds,
            ...(call.taskStep && { taskId: call.taskStep.taskId }),
          });
      },
    };
  }

  /**
   * Starts observing a request that runs no operation (a list, `initialize`, `ping`, a task
   * method…): a SERVER span named after its method and its `mcp.server.operation.duration`; call
   * only when {@link observing}.
   */
  beginRequest(request: ObservedRequest): RequestObservation {
    const started = performance.now();
    const api = this.api;
    const { span, spanContext } = this.startSpan(
      request.method,
      'server',
      requestAttributes(request),
      request,
      undefined,
      false,
    );
    return {
      within: (work) => (api && spanContext ? api.context.with(spanContext, work) : work()),
      end: (errorType, sessionId) => {
        if (api && span) {
          if (sessionId !== undefined) span.setAttribute(MCP_SEMCONV.sessionId, sessionId);
          if (errorType !== undefined) {
            span.setAttribute(MCP_SEMCONV.errorType, errorType);
            span.setAttribute(MCP_SEMCONV.responseStatusCode, errorType);
            span.setStatus({ code: api.SpanStatusCode.ERROR });
          }
          span.end();
        }
        const instruments = this.metrics();
        if (!instruments) return;
        const attributes: AttributeMap = { [MCP_SEMCONV.methodName]: request.method };
        if (request.protocolVersion !== undefined)
          attributes[MCP_SEMCONV.protocolVersion] = request.protocolVersion;
        if (errorType !== undefined) attributes[MCP_SEMCONV.errorType] = errorType;
        instruments.duration.record((performance.now() - started) / 1000, attributes);
      },
    };
  }

  /**
   * Starts a CLIENT span for a request a 2025-era call sends its client between rounds
   * (`elicitation/create`…), child of the round that asked; undefined when nothing traces.
   */
  beginClientRequest(request: ObservedClientRequest): ClientRequestObservation | undefined {
    const api = this.api;
    const provider = this.tracerProvider();
    if (!api || !provider) return undefined;
    const parentContext = spanContextOf(api, request.parent);
    const active = api.context.active();
    const parent = parentContext ? api.trace.setSpanContext(active, parentContext) : active;
    const attributes: AttributeMap = { [MCP_SEMCONV.methodName]: request.method };
    if (request.sessionId !== undefined) attributes[MCP_SEMCONV.sessionId] = request.sessionId;
    if (request.protocolVersion !== undefined)
      attributes[MCP_SEMCONV.protocolVersion] = request.protocolVersion;
    const span = this.tracerOf(provider).startSpan(
      request.method,
      { kind: api.SpanKind.CLIENT, attributes },
      parent,
    );
    return {
      end: (outcome, errorType) => {
        span.setAttribute(OWN_ATTRIBUTES.inputOutcome, outcome);
        if (errorType !== undefined) span.setAttribute(MCP_SEMCONV.errorType, errorType);
        if (outcome === 'error' || outcome === 'timed_out' || outcome === 'refused')
          span.setStatus({ code: api.SpanStatusCode.ERROR });
        span.end();
      },
    };
  }

  /**
   * Records `mcp.server.session.duration` for a 2025-era session that ended, in seconds since its
   * `initialize`.
   */
  sessionEnded(protocolVersion: string, seconds: number, errorType?: string): void {
    const instruments = this.metrics();
    if (!instruments) return;
    const attributes: AttributeMap = {
      [MCP_SEMCONV.protocolVersion]: protocolVersion,
      [MCP_SEMCONV.networkTransport]: 'tcp',
    };
    if (errorType !== undefined) attributes[MCP_SEMCONV.errorType] = errorType;
    instruments.sessionDuration.record(seconds, attributes);
  }

  /** A span of the module's and its context, when something traces; nothing otherwise. */
  private startSpan(
    name: string,
    kind: 'server' | 'internal',
    attributes: AttributeMap,
    arrived: { readonly meta: unknown; readonly headers: ObservedCall['headers'] },
    flowTrace: string | undefined,
    taskStep: boolean,
  ): { span?: Span; spanContext?: Context } {
    const api = this.api;
    const provider = this.tracerProvider();
    if (!api || !provider) return {};
    const { parent, links } = this.parentOf(
      api,
      arrived.meta,
      arrived.headers,
      flowTrace,
      taskStep,
    );
    const span = this.tracerOf(provider).startSpan(
      name,
      {
        kind: kind === 'internal' ? api.SpanKind.INTERNAL : api.SpanKind.SERVER,
        attributes,
        links,
      },
      parent,
    );
    return { span, spanContext: api.trace.setSpan(parent, span) };
  }

  /** The active span's context in `traceparent` spelling, when a traced call is running. */
  activeTrace(): string | undefined {
    const api = this.api;
    if (!api || !this.tracerProvider()) return undefined;
    const context = api.trace.getActiveSpan()?.spanContext();
    return context && api.isSpanContextValid(context) ? traceparentOf(context) : undefined;
  }

  /** Counts a task's status change and reports it to subscribers. */
  taskStatus(taskId: string, flowId: string | undefined, status: string): void {
    this.metrics()?.tasks.add(1, { [OWN_ATTRIBUTES.taskStatus]: status });
    if (this.events.observed) this.events.emit({ kind: 'task', taskId, flowId, status });
  }

  private tracerProvider(): TracerProvider | undefined {
    const api = this.api;
    if (!api) return undefined;
    const global = api.trace.getTracerProvider() as TracerProvider & {
      getDelegate?: () => TracerProvider;
    };
    const provider = global.getDelegate ? global.getDelegate() : global;
    return provider === this.noopTracerProvider ? undefined : provider;
  }

  /** The module's tracer from `provider`, asked for again only when the global provider changes. */
  private tracerOf(provider: TracerProvider): Tracer {
    if (provider !== this.seenTracerProvider || this.tracer === undefined) {
      this.seenTracerProvider = provider;
      this.tracer = provider.getTracer(INSTRUMENTATION_SCOPE, PACKAGE_VERSION);
    }
    return this.tracer;
  }

  private metrics(): Instruments | undefined {
    const api = this.api;
    if (!api) return undefined;
    const provider = api.metrics.getMeterProvider();
    if (provider !== this.seenMeterProvider) {
      this.seenMeterProvider = provider;
      this.instruments =
        provider.constructor.name === 'NoopMeterProvider' ? undefined : instrumentsOf(provider);
    }
    return this.instruments;
  }

  /**
   * The parent of a call's span: the trace context the client sent in `_meta`, else in the HTTP
   * headers, else (a retry without any) the flow's first round, else the active context (an HTTP
   * server span, when the app instruments HTTP). The flow's first round is linked when it is not the
   * parent, and so is the HTTP span when the client's `_meta` context replaced it.
   */
  private parentOf(
    api: OpenTelemetry,
    meta: unknown,
    headers: ObservedCall['headers'],
    flowTrace: string | undefined,
    taskStep: boolean,
  ): { parent: Context; links: Link[] } {
    const active = api.context.active();
    const links: Link[] = [];
    const flowContext = spanContextOf(api, flowTrace);
    if (flowContext && !taskStep && this.tracing.roundParent === 'first-round')
      return this.underFirstRound(api, active, flowContext, meta, headers);
    const fromMeta =
      meta !== null && typeof meta === 'object' && 'traceparent' in meta
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
      return { parent, links: [...links, flowLink(flowContext, taskStep)] };
    }
    if (flowContext) links.push(flowLink(flowContext, taskStep));
    return { parent: parent ?? active, links };
  }

  /**
   * `tracing.roundParent: 'first-round'`: a later round is a child of the flow's first round, and
   * the trace contexts it arrived with — the client's (`_meta`, else the header) and the active one
   * (an HTTP server span) — are links.
   */
  private underFirstRound(
    api: OpenTelemetry,
    active: Context,
    flowContext: SpanContext,
    meta: unknown,
    headers: ObservedCall['headers'],
  ): { parent: Context; links: Link[] } {
    const links: Link[] = [];
    const client =
      meta !== null && typeof meta === 'object' && 'traceparent' in meta
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
}

function flowLink(context: Link['context'], taskStep: boolean): Link {
  return {
    context,
    attributes: { [OWN_ATTRIBUTES.link]: taskStep ? 'creating_request' : 'flow_first_round' },
  };
}

function endSpan(api: OpenTelemetry, span: Span, round: ObservedRound): void {
  span.setAttribute(OWN_ATTRIBUTES.flowId, round.flowId);
  span.setAttribute(OWN_ATTRIBUTES.round, round.round);
  span.setAttribute(OWN_ATTRIBUTES.outcome, round.outcome);
  if (round.rejection) {
    span.setAttribute(OWN_ATTRIBUTES.rejectionReason, round.rejection.reason);
    if (round.rejection.detail !== undefined)
      span.setAttribute(OWN_ATTRIBUTES.rejectionField, round.rejection.detail);
  }
  if (round.errorType !== undefined) {
    span.setAttribute(MCP_SEMCONV.errorType, round.errorType);
    if (round.errorType !== 'tool_error')
      span.setAttribute(MCP_SEMCONV.responseStatusCode, round.errorType);
    span.setStatus({ code: api.SpanStatusCode.ERROR });
  }
  span.end();
}
