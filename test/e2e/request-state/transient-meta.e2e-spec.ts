import { newKeyring, startSampleApp } from '../../fixtures/sample-app';
import { ADAPTERS, type TestServer } from '../../utils/bootstrap';
import { rawToolCall, resultText, stateOf, type RawRoundResponse } from '../../utils/mcp';
import { INVALID_STATE } from '../../utils/expect-rpc';

const FORM = { elicitation: {} };

/** Trace context and per-request preferences a client may send with any round. */
const TRANSIENT_A = {
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  tracestate: 'vendor=a',
  baggage: 'tenant=acme',
  progressToken: 'p-1',
  'io.modelcontextprotocol/logLevel': 'debug',
};
const TRANSIENT_B = {
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00',
  tracestate: 'vendor=b,other=c',
  baggage: 'tenant=globex,region=eu',
  progressToken: 7,
  'io.modelcontextprotocol/logLevel': 'error',
};

const stepAnswer = (n: number, value: string) => ({
  [`step-${n}`]: { action: 'accept', content: { value } },
});

/**
 * Transient `_meta` (trace context, progress token, log level) is no part of what a sealed state is
 * bound to: it may appear, change or vanish between the rounds of one flow, on the fast path and the
 * SDK path alike, while any other `_meta` member stays bound.
 */
describe.each(ADAPTERS)('transient _meta between rounds over %s', (adapter) => {
  const keyring = newKeyring(['k1']);
  const servers: Record<'fast' | 'sdk', TestServer | undefined> = {
    fast: undefined,
    sdk: undefined,
  };

  beforeAll(async () => {
    servers.fast = await startSampleApp(adapter, { MCP_KEYRING: keyring.json });
    servers.sdk = await startSampleApp(adapter, {
      MCP_KEYRING: keyring.json,
      MCP_FAST_PATH: 'off',
    });
  });

  afterAll(async () => {
    await servers.fast?.close();
    await servers.sdk?.close();
  });

  describe.each(['fast', 'sdk'] as const)('on the %s path', (path) => {
    const url = () => (servers[path] as TestServer).url;

    const collect = (
      state: string | undefined,
      answer: Record<string, unknown> | undefined,
      meta: Record<string, unknown>,
    ): Promise<RawRoundResponse> =>
      rawToolCall(
        url(),
        'collect_rounds',
        { rounds: 3 },
        { capabilities: FORM, requestState: state, inputResponses: answer, extraMeta: meta },
      );

    it('opens the state when trace context appears on round 2, changes on 3 and vanishes on 4', async () => {
      const first = await collect(undefined, undefined, {});
      const second = await collect(stateOf(first), stepAnswer(1, 'a'), TRANSIENT_A);
      expect(second.body.result).toMatchObject({ resultType: 'input_required' });
      const third = await collect(stateOf(second), stepAnswer(2, 'b'), TRANSIENT_B);
      expect(third.body.result).toMatchObject({ resultType: 'input_required' });
      const last = await collect(stateOf(third), stepAnswer(3, 'c'), {});
      expect(resultText(last)).toBe('a,b,c');
    });

    it('opens the state when trace context sent on round 1 is gone on the retry', async () => {
      const first = await collect(undefined, undefined, TRANSIENT_B);
      const second = await collect(stateOf(first), stepAnswer(1, 'x'), {});
      expect(second.body.result).toMatchObject({ resultType: 'input_required' });
    });

    it('accepts a single-use approval whose retry adds trace context', async () => {
      const transfer = { amount: '3.00', to: 'carol' };
      const first = await rawToolCall(url(), 'transfer_funds', transfer, { capabilities: FORM });
      const retry = await rawToolCall(url(), 'transfer_funds', transfer, {
        capabilities: FORM,
        requestState: stateOf(first),
        inputResponses: { approval: { action: 'accept', content: { approve: true } } },
        extraMeta: TRANSIENT_A,
      });
      expect(resultText(retry)).toBe('Transferred 3.00 to carol');
    });

    it('still binds every other _meta member', async () => {
      const first = await collect(undefined, undefined, TRANSIENT_A);
      const retry = await collect(stateOf(first), stepAnswer(1, 'a'), {
        ...TRANSIENT_A,
        'com.example/tenant': 'acme',
      });
      expect(retry.body.error).toEqual(INVALID_STATE);
    });
  });
});
