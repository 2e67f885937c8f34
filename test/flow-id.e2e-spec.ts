import { newKeyring, startSampleApp } from './fixtures/sample-app';
import { FlowIdFixturesModule, REPLAY_FLOW_IDS } from './fixtures/flow-id.fixtures';
import { ADAPTERS, type TestServer } from './utils/bootstrap';
import { rawToolCall, resultText, stateOf, type RawRoundResponse } from './utils/mcp';

const FORM = { elicitation: {} };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The one key a round asked for, answered with `value`. */
function answerTo(response: RawRoundResponse, value: string): Record<string, unknown> {
  const [key] = Object.keys(response.body.result?.inputRequests ?? {});
  return { [key]: { action: 'accept', content: { value } } };
}

/**
 * `ctx.flowId`: minted on a flow's first round and sealed into its continuation, so every round
 * shows the same id — on another instance too — while separate flows get their own.
 */
describe.each(ADAPTERS)('flow id over %s', (adapter) => {
  const keyring = newKeyring(['k1']);
  let one: TestServer;
  let two: TestServer;

  beforeAll(async () => {
    const start = () =>
      startSampleApp(
        adapter,
        { MCP_KEYRING: keyring.json },
        { extraImports: [FlowIdFixturesModule] },
      );
    one = await start();
    two = await start();
  });

  afterAll(async () => {
    await one?.close();
    await two?.close();
  });

  /** Runs `tool` to completion, alternating instances round by round. */
  async function runFlow(tool: string): Promise<string> {
    let response = await rawToolCall(one.url, tool, {}, { capabilities: FORM });
    for (let round = 1; response.body.result?.resultType === 'input_required'; round++) {
      response = await rawToolCall(
        round % 2 === 1 ? two.url : one.url,
        tool,
        {},
        {
          capabilities: FORM,
          requestState: stateOf(response),
          inputResponses: answerTo(response, `v${round}`),
        },
      );
    }
    return resultText(response);
  }

  it('shows one id on every round of a framework-state flow, across instances (single-use state)', async () => {
    const seen = JSON.parse(await runFlow('flow_rounds')) as string[];
    expect(seen).toHaveLength(3);
    expect(seen[0]).toMatch(UUID);
    expect(new Set(seen).size).toBe(1);
  });

  it('carries the id in the replay ledger', async () => {
    REPLAY_FLOW_IDS.length = 0;
    const flowId = await runFlow('flow_replay');
    expect(flowId).toMatch(UUID);
    // The method ran on each of the three rounds, on alternating instances, always in the same flow.
    expect(REPLAY_FLOW_IDS).toEqual([flowId, flowId, flowId]);
  });

  it('gives separate flows separate ids', async () => {
    const [a, b] = await Promise.all([runFlow('flow_rounds'), runFlow('flow_rounds')]);
    expect((JSON.parse(a) as string[])[0]).not.toBe((JSON.parse(b) as string[])[0]);
  });
});
