import {
  context,
  metrics,
  propagation,
  trace,
  type Attributes,
  type HrTime,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AggregationTemporality,
  MeterProvider,
  MetricReader,
  type DataPoint,
  type Histogram,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';

/** A metric reader read on demand (`collect()`), as a Prometheus scrape would. */
class OnDemandReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/** The OpenTelemetry SDK installed globally for one suite: spans in memory, metrics on demand. */
export interface TestTelemetry {
  readonly exporter: InMemorySpanExporter;
  spans(): ReadableSpan[];
  /** The data points of `name`, as a metric reader collects them now. */
  points(name: string): Promise<DataPoint<number | Histogram>[]>;
  /** The sum of a counter's points whose attributes include `where`. */
  count(name: string, where?: Attributes): Promise<number>;
  shutdown(): Promise<void>;
}

/** Registers a tracer provider, a meter provider, the W3C propagator and an async context manager. */
export function installTestTelemetry(): TestTelemetry {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const reader = new OnDemandReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const points = async (name: string) => {
    const { resourceMetrics } = await reader.collect();
    return resourceMetrics.scopeMetrics
      .flatMap((scope) => scope.metrics)
      .filter((metric) => metric.descriptor.name === name)
      .flatMap((metric) => metric.dataPoints as DataPoint<number | Histogram>[]);
  };
  return {
    exporter,
    spans: () => exporter.getFinishedSpans(),
    points,
    async count(name, where = {}) {
      return (await points(name))
        .filter((point) =>
          Object.entries(where).every(([key, value]) => point.attributes[key] === value),
        )
        .reduce((sum, point) => sum + (point.value as number), 0);
    },
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/** A span's parent span id (SDK 2 spells it `parentSpanContext`). */
export function parentSpanId(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

/** Milliseconds of an `HrTime`. */
export function millis(time: HrTime): number {
  return time[0] * 1000 + time[1] / 1e6;
}
