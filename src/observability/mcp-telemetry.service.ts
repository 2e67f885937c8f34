import { Inject, Injectable } from '@nestjs/common';
import type { Context, MeterProvider, Span, Tracer, TracerProvider } from '@opentelemetry/api';
import { PACKAGE_VERSION } from '../kit/package-version';
import { McpFlowEvents } from './mcp-flow-events.service';
import { McpCoreEvents } from '../options/mcp-core-events';
import { auditDropAttributes, taskChangeOf, type TaskOwner } from './core-event-parts';
import { MCP_SEMCONV, OWN_ATTRIBUTES } from './mcp-semantic-conventions';
import { INSTRUMENTATION_SCOPE, instrumentsOf, type Instruments } from './mcp-instruments';
import { countRound, flowEnded, flowStarted } from './flow-metrics';
import { anyProviderRegistered, loadOpenTelemetry } from './open-telemetry.loader';
import type { CallObservation, ClientRequestObservation, RequestObservation } from './observations';
import { TRACING_OPTIONS, type TracingOptions } from './tracing-options';
import { requestAttributes, spanName, startAttributes, type AttributeMap } from './span-attributes';
import { spanContextOf, traceparentOf } from './trace-context';
import { clientRequestAttributes, clientRequestEnd } from './client-request-span';
import { endRoundSpan } from './round-span';
import { spanParentOf } from './span-parents';
import type * as OpenTelemetryApi from '@opentelemetry/api';
import type { ObservedCall } from './observed-call';
import type { ObservedClientRequest, ObservedRequest } from './observed-request';

/** `@opentelemetry/api`; only type-imported, so nothing loads it unless the app installed it. */
type OpenTelemetry = typeof OpenTelemetryApi;

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
    private readonly coreEvents: McpCoreEvents,
  ) {}

  /**
   * Whether a call is worth observing here: a tracer or meter provider, or a flow-event subscriber.
   * The core's event observers (an audit trail) are told by the runner itself: they need no span.
   */
  observing(): boolean {
    if (this.events.observed) return true;
    if (!anyProviderRegistered()) return false;
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
        if (api && span) endRoundSpan(api, span, round);
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
    const kind = api.SpanKind.CLIENT;
    const attributes = clientRequestAttributes(request);
    const span = this.tracerOf(provider).startSpan(request.method, { kind, attributes }, parent);
    return clientRequestEnd(span, api.SpanStatusCode.ERROR);
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
    const { parent, links } = spanParentOf(api, arrived, flowTrace, {
      taskStep,
      roundParent: this.tracing.roundParent,
    });
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

  /** Counts a task's status change and reports it to subscribers and the core's observers. */
  taskStatus(taskId: string, flowId: string | undefined, status: string, task?: TaskOwner): void {
    this.metrics()?.tasks.add(1, { [OWN_ATTRIBUTES.taskStatus]: status });
    if (this.events.observed) this.events.emit({ kind: 'task', taskId, flowId, status });
    if (this.coreEvents.watched)
      this.coreEvents.publish(taskChangeOf(taskId, flowId, status, task));
  }

  /** Counts records an audit trail could not keep (`nestjs_mcp.audit.records.dropped`). */
  auditRecordsDropped(count: number, sink: string, reason: string): void {
    this.metrics()?.auditDropped.add(count, auditDropAttributes(sink, reason));
  }

  private tracerProvider(): TracerProvider | undefined {
    const api = this.api;
    if (!api || !anyProviderRegistered()) return undefined; // one read, not the API's getters
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
    if (!api || !anyProviderRegistered()) return undefined;
    const provider = api.metrics.getMeterProvider();
    if (provider !== this.seenMeterProvider) {
      this.seenMeterProvider = provider;
      this.instruments =
        provider.constructor.name === 'NoopMeterProvider' ? undefined : instrumentsOf(provider);
    }
    return this.instruments;
  }
}
