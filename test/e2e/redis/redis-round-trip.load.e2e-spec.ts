import { createHash } from 'node:crypto';

import { CapturingLogger, newKeyring } from '../../fixtures/sample-app';
import { ADAPTERS, type TestServer } from '../../utils/bootstrap';
import { resultText, type RawRoundResponse } from '../../utils/mcp';
import { closeRedisClient } from '../../utils/redis-server';
import { TcpProxy } from '../../utils/tcp-proxy';
import { until } from '../../utils/wait';
import {
  askToDelete,
  confirmDelete,
  startOneTimeStateApp,
  deletionsOn,
} from '../request-state/one-time-state.fixtures';
import { INVALID_STATE, STORE_UNAVAILABLE } from '../../utils/expect-rpc';
import { serverForSuite } from '../../utils/suite-server';
import { SuiteScope } from '../../utils/suite-resource';
import { redisForSuite } from '../../utils/redis-suite';

const COMMAND_TIMEOUT_MS = 1_000;
const DELETED = 'Deleted /srv/report.pdf';

/*
 * A single-use round whose Redis round trip breaks at each point it can: before the claim is sent
 * (Redis unreachable), sent but not yet at Redis (it arrives after the client was told to retry),
 * applied but its reply lost (with the connection, after or before the client gave up, or only
 * late), and applied while another presentation of the same state arrives. Instance A reaches
 * Redis through a TCP proxy the test breaks; instance B directly. In every case the client told
 * "Server busy" retries the same round and is accepted exactly once — never refused as a replay —
 * the method runs once in all, and any later presentation of the state is refused.
 */
describe.each(ADAPTERS)('a single-use round whose Redis round trip breaks, over %s', (adapter) => {
  const keyring = newKeyring(['k1']);
  const logger = new CapturingLogger();
  const scope = new SuiteScope();
  const { server: redis, client: admin } = redisForSuite(scope);
  const proxy = scope.open(
    async () => {
      const started = new TcpProxy(redis.port);
      await started.start();
      return started;
    },
    (started) => started.close(),
  );
  /** An instance on the Redis at `url()`. */
  const instance = (url: () => string) =>
    serverForSuite(
      () =>
        startOneTimeStateApp(
          adapter,
          {
            keyring: { active: keyring.active, keys: keyring.keys },
            redis: { url: url(), commandTimeoutMs: COMMAND_TIMEOUT_MS },
          },
          { logger },
        ),
      scope,
    );
  /** Reaches Redis through the proxy. */
  const a = instance(() => proxy.url);
  /** Reaches Redis directly. */
  const b = instance(() => redis.url);

  const runs = () => deletionsOn(a, b);

  const claimKey = (state: string) =>
    `nestjs-mcp:consumed:${createHash('sha256').update(state, 'utf8').digest('base64url')}`;

  /** Waits until Redis holds the claim of `state`, pending (applied, not yet settled). */
  const applied = (state: string) =>
    until(async () => (await admin.get(claimKey(state)))?.startsWith('p ') === true, {
      what: 'the claim to be applied at Redis',
      everyMs: 5,
    });

  /**
   * Presents `state` on A with Redis's replies to A held, and waits until Redis has applied the
   * claim: the answer is still to come.
   */
  async function appliedWithReplyHeld(state: string) {
    proxy.set('down', 'hold');
    const answer = confirmDelete(a, 'once_delete', state);
    await applied(state);
    return { answer };
  }

  /**
   * The client's retry of the same round after "Server busy", sent again while it is told to
   * retry (the earlier claim may be in doubt for a moment): accepted, never refused as a replay.
   */
  async function retriedUntilAccepted(
    server: TestServer,
    state: string,
  ): Promise<RawRoundResponse> {
    const answer = await until(() => confirmDelete(server, 'once_delete', state), {
      done: (response) => response.body.error?.code !== -32000,
      what: 'the retry to be answered other than Server busy',
      everyMs: 100,
    });
    expect(answer.body.error).toBeUndefined();
    expect(resultText(answer)).toBe(DELETED);
    return answer;
  }

  /** Heals the proxy and waits until A serves single-use rounds again. */
  async function healed(): Promise<void> {
    proxy.heal();
    await until(
      async () =>
        (await confirmDelete(a, 'once_delete', await askToDelete(b, 'once_delete'))).body.result !==
        undefined,
      { what: 'instance A to reach Redis again', everyMs: 100 },
    );
  }

  /**
   * Runs `scenario` on a fresh state, then heals the proxy (one more flow on A); checks the state's
   * method ran once in all and that the state is spent on both instances after.
   */
  async function breaking(scenario: (state: string) => Promise<void>): Promise<void> {
    const state = await askToDelete(b, 'once_delete');
    const before = runs();
    try {
      await scenario(state);
    } finally {
      await healed();
    }
    // The scenario's round once, and the flow that checked A was healed.
    expect(runs() - before).toBe(2);
    for (const server of [a, b])
      expect((await confirmDelete(server, 'once_delete', state)).body.error).toEqual(INVALID_STATE);
    expect(runs() - before).toBe(2);
  }

  it('before the claim is sent (Redis unreachable): refused at once, nothing recorded; the retry is accepted', async () => {
    await breaking(async (state) => {
      proxy.refuse(true);
      proxy.cut();
      const refused = await confirmDelete(a, 'once_delete', state);
      expect(refused.body.error).toEqual(STORE_UNAVAILABLE);
      expect(await admin.exists(claimKey(state))).toBe(0);
      proxy.refuse(false);
      await retriedUntilAccepted(a, state);
    });
  });

  it('sent but not yet at Redis: the claim arrives after the client was told to retry and changes nothing', async () => {
    const events = await admin.duplicate();
    await admin.config('SET', 'notify-keyspace-events', 'KA');
    const seen: string[] = [];
    try {
      await breaking(async (state) => {
        await events.subscribe(`__keyspace@0__:${claimKey(state)}`);
        events.on('message', (_channel: string, event: string) => seen.push(event));
        proxy.set('up', 'hold');
        const sentBefore = proxy.bytesUp;
        const refused = await confirmDelete(a, 'once_delete', state);
        expect(refused.body.error).toEqual(STORE_UNAVAILABLE);
        // The claim (and the release queued after it) reach Redis now, past the claim's deadline.
        proxy.set('up', 'pass');
        await until(() => proxy.bytesUp > sentBefore, 'the held claim to reach Redis');
        await admin.ping();
        expect(await admin.exists(claimKey(state))).toBe(0);
        await retriedUntilAccepted(b, state);
        await events.unsubscribe();
      });
      // The late claim wrote nothing: the only writes to the key are the accepted retry's.
      expect(seen[0]).toBe('set');
      expect(seen.filter((event) => event === 'del')).toEqual([]);
    } finally {
      await admin.config('SET', 'notify-keyspace-events', '');
      await closeRedisClient(events);
    }
  });

  it('applied, its reply lost with the connection after the client was told to retry: the claim is released, the retry accepted', async () => {
    await breaking(async (state) => {
      const before = runs();
      const { answer } = await appliedWithReplyHeld(state);
      expect((await answer).body.error).toEqual(STORE_UNAVAILABLE);
      expect(runs()).toBe(before);
      proxy.cut();
      proxy.refuse(false);
      proxy.set('down', 'pass');
      await retriedUntilAccepted(b, state);
    });
  });

  it('applied, and the connection drops before the client gave up: the resent claim recognises its own, the call completes', async () => {
    await breaking(async (state) => {
      const { answer } = await appliedWithReplyHeld(state);
      // ioredis resends the unanswered claim on its new connection: the same attempt, its own.
      proxy.cut();
      proxy.set('down', 'pass');
      expect(resultText(await answer)).toBe(DELETED);
    });
  });

  it('applied, its reply only late: the client was told to retry, the late reply is ignored, the retry accepted', async () => {
    await breaking(async (state) => {
      const { answer } = await appliedWithReplyHeld(state);
      expect((await answer).body.error).toEqual(STORE_UNAVAILABLE);
      proxy.set('down', 'pass');
      await retriedUntilAccepted(a, state);
    });
  });

  it('applied and unsettled while another presentation arrives: that one is told to retry, never accepted nor refused as a replay, until the claim is released', async () => {
    await breaking(async (state) => {
      const before = runs();
      const { answer } = await appliedWithReplyHeld(state);
      // A cannot release its claim either: it is in doubt for everyone else.
      proxy.set('up', 'hold');
      expect((await answer).body.error).toEqual(STORE_UNAVAILABLE);
      const meanwhile = await confirmDelete(b, 'once_delete', state);
      expect(meanwhile.body.error).toEqual(STORE_UNAVAILABLE);
      expect(runs()).toBe(before);
      expect((await admin.get(claimKey(state)))?.startsWith('p ')).toBe(true);
      proxy.set('up', 'pass');
      await retriedUntilAccepted(b, state);
      proxy.set('down', 'pass');
    });
  });
});
