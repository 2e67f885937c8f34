import request from 'supertest';
import { newKeyring } from '../../fixtures/sample-app';
import { ADAPTERS } from '../../utils/bootstrap';
import { rawToolCall, stateOf } from '../../utils/mcp';
import {
  ensureSampleBuilt,
  startSampleProcess,
  type SampleProcess,
} from '../../utils/sample-process';
import { until } from '../../utils/wait';

const FORM = { elicitation: {} };

/** The built sample with `MCP_TRACE=console` and `MCP_METRICS=prometheus`, as `npm start` runs it. */
describe.each(ADAPTERS)('the sample app with telemetry over %s', (adapter) => {
  let sample: SampleProcess;

  beforeAll(async () => {
    await ensureSampleBuilt();
    sample = await startSampleProcess(adapter, {
      MCP_KEYRING: newKeyring(['k1']).json,
      MCP_ADMIN_TOKEN: 'admin-token',
      MCP_TRACE: 'console',
      MCP_METRICS: 'prometheus',
    });
  }, 120_000);

  afterAll(() => sample?.stop());

  it('prints the spans of a flow and serves its metrics at /metrics', async () => {
    const first = await rawToolCall(
      sample.url,
      'collect_rounds',
      { rounds: 1 },
      { capabilities: FORM },
    );
    await rawToolCall(
      sample.url,
      'collect_rounds',
      { rounds: 1 },
      {
        capabilities: FORM,
        requestState: stateOf(first),
        inputResponses: { 'step-1': { action: 'accept', content: { value: 'x' } } },
      },
    );
    await until(() => sample.log(), {
      done: (log) => (log.match(/name: 'tools\/call collect_rounds'/g) ?? []).length >= 2,
      what: 'two spans printed',
    });
    expect(sample.log()).toContain("'nestjs_mcp.outcome': 'complete'");

    const metrics = await request(sample.url.origin).get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(
      /mcp_server_operation_duration_bucket\{[^}]*gen_ai_tool_name="collect_rounds"[^}]*le="0.01"\}/,
    );
    expect(metrics.text).toMatch(
      /nestjs_mcp_flows_started_total\{[^}]*gen_ai_tool_name="collect_rounds"[^}]*\} 1/,
    );
    expect(metrics.text).toMatch(
      /nestjs_mcp_flows_completed_total\{[^}]*gen_ai_tool_name="collect_rounds"[^}]*\} 1/,
    );
  });
});
