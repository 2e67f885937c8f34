import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/** Serves the Prometheus text format: mount it where the app answers `GET /metrics`. */
export type MetricsHandler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * The sample's OpenTelemetry set-up, before the app is created: `MCP_TRACE=console` prints every
 * finished span, `MCP_METRICS=prometheus` makes the metrics a `/metrics` handler (mounted by
 * main.ts on the app's own port). nestjs-mcp needs nothing else: it finds the global providers.
 * A real deployment would use `@opentelemetry/sdk-node` with OTLP exporters (docs/operations.md).
 */
export function setUpTelemetry(): MetricsHandler | undefined {
  const traceMode = process.env.MCP_TRACE;
  const metricsMode = process.env.MCP_METRICS;
  if (traceMode === undefined && metricsMode === undefined) return undefined;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  if (traceMode !== undefined) {
    if (traceMode !== 'console') throw new Error('MCP_TRACE must be "console"');
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({
        spanProcessors: [new SimpleSpanProcessor(new ConsoleSpanExporter())],
      }),
    );
  }
  if (metricsMode === undefined) return undefined;
  if (metricsMode !== 'prometheus') throw new Error('MCP_METRICS must be "prometheus"');
  const exporter = new PrometheusExporter({ preventServerStart: true });
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [exporter] }));
  return (request, response) => exporter.getMetricsRequestHandler(request, response);
}
