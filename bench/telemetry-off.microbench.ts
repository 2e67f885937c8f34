/**
 * What an unobserved call pays for telemetry: `McpTelemetry.observing()` with `@opentelemetry/api`
 * installed but no tracer or meter provider registered and no event subscriber (the runner's only
 * telemetry work then). Prints ns per check and the heap growth over 5 million checks.
 *
 * Run: TS_NODE_PROJECT=tsconfig.json node --expose-gc -r ts-node/register/transpile-only bench/telemetry-off.microbench.ts
 */
import { McpFlowEvents } from '../src/observability/mcp-flow-events.service';
import { McpTelemetry } from '../src/observability/mcp-telemetry.service';
import { DEFAULT_TRACING_OPTIONS } from '../src/observability/tracing-options';
import { McpCoreEvents } from '../src/options/mcp-core-events';

const telemetry = new McpTelemetry(
  new McpFlowEvents(),
  DEFAULT_TRACING_OPTIONS,
  new McpCoreEvents(),
);
const N = 5_000_000;
for (let i = 0; i < 100_000; i++) telemetry.observing();
if (global.gc) global.gc();
const heap0 = process.memoryUsage().heapUsed;
const t0 = process.hrtime.bigint();
let on = 0;
for (let i = 0; i < N; i++) if (telemetry.observing()) on++;
const ns = Number(process.hrtime.bigint() - t0) / N;
const heap1 = process.memoryUsage().heapUsed;
console.log(
  JSON.stringify({ nsPerCheck: ns.toFixed(1), observed: on, heapGrowthBytes: heap1 - heap0 }),
);
