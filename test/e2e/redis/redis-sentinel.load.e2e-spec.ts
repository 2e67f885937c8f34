import { newKeyring } from '../../fixtures/sample-app';
import {
  askToDelete,
  confirmDelete,
  startOneTimeStateApp,
  deletionsOn,
} from '../request-state/one-time-state.fixtures';
import { type TestServer } from '../../utils/bootstrap';
import { resultText } from '../../utils/mcp';
import { startSentinelSet, type SentinelSetHandle } from '../../utils/redis-sentinel';
import { until } from '../../utils/wait';

/*
 * `redis: { sentinel }` on a real Sentinel set (one master, one replica, three sentinels): the
 * module's client finds the master through the sentinels, and when the master dies it follows the
 * replica the sentinels promote. Meanwhile a single-use retry is refused with the retryable -32000
 * `Server busy: the store is unavailable` (nothing recorded, nothing run); afterwards flows
 * complete again, and a state accepted once is never accepted twice.
 */
describe('the redis option on a Sentinel set, two instances', () => {
  const keyring = newKeyring(['k1']);
  let set: SentinelSetHandle;
  /** Two instances of a fleet, each with its own client on the set. */
  let server: TestServer;
  let other: TestServer;

  beforeAll(async () => {
    set = await startSentinelSet();
    const instance = (adapter: 'express' | 'fastify') =>
      startOneTimeStateApp(adapter, {
        keyring: { active: keyring.active, keys: keyring.keys },
        redis: {
          sentinel: { sentinels: set.sentinels, name: set.name },
          commandTimeoutMs: 500,
        },
      });
    server = await instance('express');
    other = await instance('fastify');
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await other?.close();
    await set?.close();
  });

  const deleted = () => deletionsOn(server, other);

  it('follows the promoted replica when the master dies; what fails meanwhile fails with the documented error', async () => {
    const before = await askToDelete(server, 'once_delete');
    expect(resultText(await confirmDelete(server, 'once_delete', before))).toBe(
      'Deleted /srv/report.pdf',
    );
    expect(await set.currentMaster()).toBe(`127.0.0.1:${set.master.port}`);

    await set.master.stop('SIGKILL');
    const failures: unknown[] = [];
    let successes = 0;
    /** One flow: asked on `asking`, approved on `approving`; its state when it completed. */
    const flow = async (asking: TestServer, approving: TestServer) => {
      const state = await askToDelete(asking, 'once_delete');
      const answer = await confirmDelete(approving, 'once_delete', state);
      if (answer.body.error) failures.push(answer.body.error);
      else successes += 1;
      return answer.body.result ? state : undefined;
    };
    // Until flows complete again in both directions: each instance asks, the other approves.
    const recovered: string[] = [];
    for (const [asking, approving] of [
      [server, other],
      [other, server],
    ])
      recovered.push(
        (await until(() => flow(asking, approving), {
          done: Boolean,
          what: 'flows to complete again',
          timeoutMs: 30_000,
          everyMs: 100,
        })) as string,
      );
    // For the record (docs/redis.md): how many flows failed while no master answered.
    console.log(
      `Sentinel failover: ${failures.length} flow(s) refused, ${successes} completed, until flows completed again on both instances`,
    );
    expect(await set.currentMaster()).toBe(`127.0.0.1:${set.replica.port}`);
    // Refused while no master answered: the retryable -32000 of an outage, the method never ran.
    for (const failure of failures)
      expect(failure).toEqual({
        code: -32000,
        message: 'Server busy: the store is unavailable',
        data: { retryAfterMs: 1_000 },
      });
    expect(deleted()).toBe(1 + successes);

    // On the promoted master single use holds across the fleet: a state accepted on one instance
    // is refused on either, and runs nothing more.
    for (const state of recovered)
      for (const replayed of [server, other])
        expect((await confirmDelete(replayed, 'once_delete', state)).body.error?.code).toBe(-32602);
    expect(deleted()).toBe(1 + successes);
  }, 60_000);
});
