/**
 * For the `traced` bench variant: the OpenTelemetry SDK as an instrumented app would have it —
 * every span exported in batches (as a deployment would) to an in-memory exporter (emptied as it fills, so memory stays flat), a
 * meter provider with a reader, the W3C propagator and the async-hooks context manager.
 */
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';

class PullReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/** `sampledRatio`: keep that share of new traces (parent-based), as a busy deployment would; all of them when unset. */
export function installBenchTelemetry(options: { sampledRatio?: number } = {}): void {
  const exporter = new InMemorySpanExporter();
  const reader = new PullReader();
  // BENCH_OTEL_CONTEXT=off leaves the context manager out: what the rest costs without it.
  if (process.env.BENCH_OTEL_CONTEXT !== 'off')
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({
      spanProcessors: [new BatchSpanProcessor(exporter)],
      ...(options.sampledRatio !== undefined && {
        sampler: new ParentBasedSampler({
          root: new TraceIdRatioBasedSampler(options.sampledRatio),
        }),
      }),
    }),
  );
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  // A scrape every second and an emptied exporter, as a real pipeline would drain them.
  setInterval(() => {
    exporter.reset();
    void reader.collect();
  }, 1_000).unref();
}
