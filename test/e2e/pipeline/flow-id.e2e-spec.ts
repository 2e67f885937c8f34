import { CapturingLogger, newKeyring, startSampleApp } from '../../fixtures/sample-app';
import { FlowIdFixturesModule, REPLAY_FLOW_IDS } from './flow-id.fixtures';
import { ADAPTERS, type TestServer } from '../../utils/bootstrap';
import { rawToolCall, resultText, stateOf, type RawRoundResponse } from '../../utils/mcp';

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
  const logger = new CapturingLogger();

  beforeAll(async () => {
    const start = (options: { logger?: CapturingLogger } = {}) =>
      startSampleApp(
        adapter,
        { MCP_KEYRING: keyring.json },
        { extraImports: [FlowIdFixturesModule], ...options },
      );
    // Nest's logger is one for the process: the instance that logs is started last.
    two = await start();
    one = await start({ logger });
  });

  afterAll(async () => {
    await one?.close();
    await two?.close();
  });

  /** Runs `tool` to completion, alternating instances round by round unless `oneInstance`. */
  async function runFlow(tool: string, oneInstance = false): Promise<string> {
    let response = await rawToolCall(one.url, tool, {}, { capabilities: FORM });
    for (let round = 1; response.body.result?.resultType === 'input_required'; round++) {
      response = await rawToolCall(
        round % 2 === 1 && !oneInstance ? two.url : one.url,
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

  /** Runs `tool`'s three rounds across instances: each saw the same id, a UUID. */
  async function expectOneFlowId(tool: string): Promise<void> {
    const seen = JSON.parse(await runFlow(tool)) as string[];
    expect(seen).toHaveLength(3);
    expect(seen[0]).toMatch(UUID);
    expect(new Set(seen).size).toBe(1);
  }

  it('shows one id on every round of a framework-state flow, across instances (single-use state)', async () => {
    await expectOneFlowId('flow_rounds');
  });

  it('carries the id in the replay ledger', async () => {
    REPLAY_FLOW_IDS.length = 0;
    const flowId = await runFlow('flow_replay');
    expect(flowId).toMatch(UUID);
    // The method ran on each of the three rounds, on alternating instances, always in the same flow.
    expect(REPLAY_FLOW_IDS).toEqual([flowId, flowId, flowId]);
  });

  it('carries the id through application-protected state, across instances, the string verbatim', async () => {
    await expectOneFlowId('flow_app_state');
  });

  it('carries the id through a state handle, and a refused handle names the flow in the log', async () => {
    // Handles live in this instance's memory: the flow stays on one instance.
    const seen = JSON.parse(await runFlow('flow_handle', true)) as string[];
    expect(seen).toHaveLength(3);
    expect(new Set(seen).size).toBe(1);

    const first = await rawToolCall(one.url, 'flow_handle', {}, { capabilities: FORM });
    const retry = (id: number) =>
      rawToolCall(
        one.url,
        'flow_handle',
        {},
        {
          id,
          capabilities: FORM,
          requestState: stateOf(first),
          inputResponses: answerTo(first, 'v1'),
        },
      );
    expect((await retry(101)).body.result?.resultType).toBe('input_required');
    const mark = logger.lines.length;
    // The same handle again: redeemed already, refused.
    expect((await retry(102)).body.error?.code).toBe(-32602);
    const refusal = logger.lines
      .slice(mark)
      .map((line) => line.text)
      .find((message) => message.includes('request state rejected'));
    expect(refusal).toMatch(/\(request 102, flow [0-9a-f-]{36}\)/);
    const flowId = /flow ([0-9a-f-]{36})/.exec(refusal ?? '')?.[1];
    expect(stateOf(first)).toContain(`.${flowId}.`);
  });

  it("mints a new id when an application state's flow prefix was edited", async () => {
    const first = await rawToolCall(one.url, 'flow_app_state', {}, { capabilities: FORM });
    const state = stateOf(first);
    const [, flowId] = state.split('.');
    const edited = state.replace(
      flowId,
      flowId.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')),
    );
    const next = await rawToolCall(
      one.url,
      'flow_app_state',
      {},
      { capabilities: FORM, requestState: edited, inputResponses: answerTo(first, 'v1') },
    );
    const nextState = stateOf(next);
    // The application's part arrived as it was; the flow id did not carry over.
    expect(nextState.endsWith(`.${flowId},${nextState.split('.')[1]}`)).toBe(true);
    expect(nextState.split('.')[1]).not.toBe(flowId);
  });

  it('gives separate flows separate ids', async () => {
    const [a, b] = await Promise.all([runFlow('flow_rounds'), runFlow('flow_rounds')]);
    expect((JSON.parse(a) as string[])[0]).not.toBe((JSON.parse(b) as string[])[0]);
  });
});
