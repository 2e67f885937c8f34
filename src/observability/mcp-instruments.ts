import { PACKAGE_VERSION } from '../kit/package-version';
import {
  MCP_SEMCONV,
  OPERATION_DURATION_BUCKETS,
  OWN_INSTRUMENTS,
} from './mcp-semantic-conventions';
import type { AttributeMap } from './span-attributes';

/**
 * The parts of OpenTelemetry's metrics API the module calls (its `Counter`, `Histogram` and
 * `MeterProvider` have them): declared here because the published declarations must not name the
 * optional peer.
 * @internal
 */
export interface Counter {
  add(value: number, attributes?: AttributeMap): void;
}

/** @internal */
export interface Histogram {
  record(value: number, attributes?: AttributeMap): void;
}

interface InstrumentOptions {
  readonly description: string;
  readonly unit: string;
  readonly advice?: { readonly explicitBucketBoundaries: number[] };
}

/** @internal */
export interface MeterProvider {
  getMeter(
    name: string,
    version?: string,
  ): {
    createCounter(name: string, options?: InstrumentOptions): Counter;
    createHistogram(name: string, options?: InstrumentOptions): Histogram;
  };
}

/** The instrumentation scope of the module's spans and instruments. @internal */
export const INSTRUMENTATION_SCOPE = 'nestjs-mcp';

/** The module's instruments, made once per meter provider. @internal */
export interface Instruments {
  readonly duration: Histogram;
  readonly started: Counter;
  readonly completed: Counter;
  readonly declined: Counter;
  readonly cancelled: Counter;
  readonly rejected: Counter;
  readonly expired: Counter;
  readonly rounds: Histogram;
  readonly tasks: Counter;
  readonly sessionDuration: Histogram;
  readonly auditDropped: Counter;
}

/** @internal */
export function instrumentsOf(provider: MeterProvider): Instruments {
  const meter = provider.getMeter(INSTRUMENTATION_SCOPE, PACKAGE_VERSION);
  const counter = (name: string, description: string) =>
    meter.createCounter(name, { description, unit: '{flow}' });
  return {
    duration: meter.createHistogram(MCP_SEMCONV.operationDuration, {
      description: 'Duration of one MCP request on the server',
      unit: 's',
      advice: { explicitBucketBoundaries: OPERATION_DURATION_BUCKETS },
    }),
    started: counter(OWN_INSTRUMENTS.flowsStarted, 'Flows whose first round asked for input'),
    completed: counter(OWN_INSTRUMENTS.flowsCompleted, 'Flows a later round completed'),
    declined: counter(OWN_INSTRUMENTS.flowsDeclined, 'Flows that ended after the user declined'),
    cancelled: counter(OWN_INSTRUMENTS.flowsCancelled, 'Flows that ended after the user cancelled'),
    rejected: counter(OWN_INSTRUMENTS.flowsRejected, 'Retries whose request state was refused'),
    expired: counter(OWN_INSTRUMENTS.flowsExpired, 'Retries whose state had expired on arrival'),
    rounds: meter.createHistogram(OWN_INSTRUMENTS.flowRounds, {
      description: 'Rounds of a flow that ended',
      unit: '{round}',
      advice: { explicitBucketBoundaries: [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 50] },
    }),
    tasks: meter.createCounter(OWN_INSTRUMENTS.tasks, {
      description: 'Task status changes, by status',
      unit: '{task}',
    }),
    auditDropped: meter.createCounter(OWN_INSTRUMENTS.auditRecordsDropped, {
      description: 'Audit records an audit trail could not keep (its queue full, its sink down)',
      unit: '{record}',
    }),
    sessionDuration: meter.createHistogram(MCP_SEMCONV.sessionDuration, {
      description: 'Duration of one 2025-era MCP session on the server, from initialize to its end',
      unit: 's',
      advice: { explicitBucketBoundaries: OPERATION_DURATION_BUCKETS },
    }),
  };
}
