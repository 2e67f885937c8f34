import { createConnection } from 'node:net';

import { join, resolve } from 'node:path';
import type { SampleEnv } from '../../fixtures/sample-app';
import { ADAPTERS, type AdapterName } from '../../utils/bootstrap';
import { kidOf, type RawRoundResponse } from '../../utils/mcp';

import {
  ensureSampleBuilt,
  startSampleProcess,
  type SampleProcess,
  type SampleProcessEnv,
} from '../../utils/sample-process';
import { until } from '../../utils/wait';

import { INVALID_STATE } from '../../utils/expect-rpc';
import { beginTransfer, completeTransfer } from '../../utils/sample-calls';
import { keyringAdmin } from '../../utils/keyring-admin';
import { pkcs11KeySourceEnv, softHsmTokenForSuite } from '../../utils/softhsm-token';
import { sampleInstancesForSuite } from '../../utils/sample-fleet';

const ADMIN_TOKEN = 'key-custody-admin-71d2';
const DONE = 'Transferred 12.50 to bob';
const BUSY = { code: -32000, message: 'Server busy: the key store is unavailable' };
const PIN = '5813';
const KILLER = resolve(__dirname, '../../utils/pkcs11-session-killer.cjs');

/** Sends one command to the session killer preloaded in a sample process; resolves with its answer. */
function killSessions(socketPath: string, command: 'close-all' | 'logout'): Promise<string> {
  return new Promise((done, fail) => {
    const socket = createConnection(socketPath);
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
      if (answer.includes('\n')) {
        socket.end();
        done(answer.trim());
      }
    });
    socket.on('error', fail);
    socket.write(`${command}\n`);
  });
}

/** What the flows of a load saw. */
class FlowTally {
  completed = 0;
  busy = 0;
  refused = 0;
  readonly wrong: string[] = [];

  /** Counts a round's answer; `true` when the flow goes on to its next round. */
  count(response: RawRoundResponse, expected: 'state' | 'done'): boolean {
    const error = response.body.error;
    if (error && error.code === BUSY.code && error.message === BUSY.message) {
      this.busy++;
      return false;
    }
    if (expected === 'state' && typeof response.body.result?.requestState === 'string') return true;
    if (expected === 'done') {
      const content = response.body.result?.content as { text?: string }[] | undefined;
      if (content?.[0]?.text === DONE) {
        this.completed++;
        return false;
      }
    }
    this.wrong.push(`${response.status} ${response.text.slice(0, 300)}`);
    return false;
  }
}

const admin = (server: SampleProcess, action: string, body?: object) =>
  keyringAdmin(server, ADMIN_TOKEN, action, body);

jest.setTimeout(240_000);

const hsm = softHsmTokenForSuite(PIN, ['--resident', 'k1,k2,k3']);
beforeAll(() => ensureSampleBuilt(), 300_000);

function hsmEnv(env: SampleEnv & Record<string, string>): SampleProcessEnv {
  return {
    MCP_ADMIN_TOKEN: ADMIN_TOKEN,
    ...pkcs11KeySourceEnv(hsm.token),
    ...env,
  } as SampleProcessEnv;
}

describe.each(ADAPTERS)('keys in an HSM whose sessions are killed under load (%s)', (adapter) => {
  let server: SampleProcess;
  let socketPath: string;

  beforeAll(async () => {
    socketPath = join(hsm.dir, `killer-${adapter}.sock`);
    server = await startSampleProcess(
      adapter as AdapterName,
      hsmEnv({
        MCP_KEYRING: JSON.stringify({ active: 'k1', keys: { k1: { pkcs11: 'k1' } } }),
        NODE_OPTIONS: `--require ${KILLER}`,
        PKCS11_SESSION_KILLER: socketPath,
      }),
    );
  }, 60_000);
  afterAll(() => server?.stop());

  it('replaces the killed sessions and retries: every round answers right, at most the retryable -32000', async () => {
    const tally = new FlowTally();
    let running = true;
    const worker = async () => {
      while (running) {
        const first = await beginTransfer(server.url);
        if (!tally.count(first, 'state')) continue;
        tally.count(
          await completeTransfer(server.url, first.body.result?.requestState as string),
          'done',
        );
      }
    };
    const workers = Array.from({ length: 8 }, worker);
    const kills: string[] = [];
    try {
      // Each kill lands while rounds are in flight: the next waits for flows to complete after it.
      for (let kill = 0; kill < 24; kill++) {
        const before = tally.completed;
        await until(() => tally.completed >= before + 5 || tally.wrong.length > 0, {
          what: 'flows to complete between kills',
          timeoutMs: 60_000,
        });
        // Every third kill is a burst: the sessions opened to replace the killed ones are killed too.
        kills.push(await killSessions(socketPath, kill % 2 === 0 ? 'close-all' : 'logout'));
        if (kill % 3 === 2) await killSessions(socketPath, 'close-all');
      }
    } finally {
      running = false;
      await Promise.all(workers);
    }
    expect(kills.filter((answer) => answer === 'ok')).toHaveLength(24);
    expect(tally.wrong).toEqual([]);
    // Recovered: flows after the last kill all complete, none answered busy.
    const after = new FlowTally();
    for (let flow = 0; flow < 10; flow++) {
      const first = await beginTransfer(server.url);
      if (after.count(first, 'state'))
        after.count(
          await completeTransfer(server.url, first.body.result?.requestState as string),
          'done',
        );
    }
    expect(after).toMatchObject({ completed: 10, busy: 0, wrong: [] });
    console.log(
      `${adapter}: 24 session kills under 8 concurrent flows: ${tally.completed} completed, ${tally.busy} answered busy, ${tally.wrong.length} wrong`,
    );
  });
});

describe.each(ADAPTERS)(
  'a rotation across two instances while flows are in flight (%s)',
  (adapter) => {
    const servers = sampleInstancesForSuite(
      adapter as AdapterName,
      `rotation-${adapter}`,
      (fleet) =>
        hsmEnv({
          MCP_KEYRING: JSON.stringify({ active: 'k1', keys: { k1: { pkcs11: 'k1' } } }),
          ...fleet,
        }),
    );

    it('stage → activate → remove loses no flow that was valid under either key; after remove only k1 flows fail, as documented', async () => {
      const [a, b] = servers;
      /** Where the rotation is: 0 before activate returned, 1 after, 2 while removing, 3 after. */
      let phase = 0;
      interface Flow {
        kid: string;
        /** The phase when round 2 was sent and when it was answered. */
        sent: number;
        answered: number;
        outcome: 'done' | 'invalid-state' | string;
      }
      const flows: Flow[] = [];
      const outcomeOf = (response: RawRoundResponse) => {
        const content = response.body.result?.content as { text?: string }[] | undefined;
        if (content?.[0]?.text === DONE) return 'done';
        const error = response.body.error;
        if (error?.code === INVALID_STATE.code && error.message === INVALID_STATE.message)
          return 'invalid-state';
        return `${response.status} ${response.text.slice(0, 200)}`;
      };
      const flow = async (to: SampleProcess, state: string) => {
        const sent = phase;
        const outcome = outcomeOf(await completeTransfer(to.url, state));
        flows.push({ kid: kidOf(state), sent, answered: phase, outcome });
      };
      // Flows begun under k1 before the rotation, completed after activate and after remove.
      const held = await Promise.all(
        Array.from({ length: 8 }, async (_, index) => {
          const response = await beginTransfer((index % 2 === 0 ? a : b).url);
          return response.body.result?.requestState as string;
        }),
      );
      expect(held.map(kidOf)).toEqual(Array(8).fill('k1'));

      let running = true;
      const worker = async (index: number) => {
        const [from, to] = index % 2 === 0 ? [a, b] : [b, a];
        while (running) {
          const first = await beginTransfer(from.url);
          const state = first.body.result?.requestState;
          if (typeof state !== 'string') {
            flows.push({ kid: '?', sent: phase, answered: phase, outcome: outcomeOf(first) });
            continue;
          }
          await flow(to, state);
        }
      };
      const workers = Array.from({ length: 6 }, (_, index) => worker(index));
      const flowsBy = (count: number) =>
        until(() => flows.length >= count, { what: `${count} flows`, timeoutMs: 60_000 });
      try {
        await flowsBy(20);
        expect((await admin(a, 'stage', { id: 'k2', pkcs11: 'k2' })).status).toBe(200);
        await flowsBy(flows.length + 20);
        expect((await admin(b, 'activate', { id: 'k2' })).status).toBe(200);
        phase = 1;
        await Promise.all(held.slice(0, 4).map((state, index) => flow([a, b][index % 2], state)));
        await flowsBy(flows.length + 20);
        phase = 2;
        expect((await admin(a, 'remove', { id: 'k1' })).status).toBe(200);
        phase = 3;
        await Promise.all(held.slice(4).map((state, index) => flow([a, b][index % 2], state)));
        await flowsBy(flows.length + 20);
      } finally {
        running = false;
        await Promise.all(workers);
      }

      const unexpected = flows.filter(
        (each) =>
          each.outcome !== 'done' &&
          !(each.outcome === 'invalid-state' && each.kid === 'k1' && each.answered >= 2),
      );
      expect(unexpected).toEqual([]);
      // Valid under either key until the removal: every such flow completed.
      const beforeRemoval = flows.filter((each) => each.answered < 2);
      expect(beforeRemoval.every((each) => each.outcome === 'done')).toBe(true);
      const oldKeyAfterActivate = flows.filter((each) => each.kid === 'k1' && each.sent === 1);
      expect(oldKeyAfterActivate.length).toBeGreaterThanOrEqual(4);
      expect(oldKeyAfterActivate.every((each) => each.outcome === 'done')).toBe(true);
      // After the removal, exactly the flows sealed under k1 fail, with the documented answer.
      const afterRemoval = flows.filter((each) => each.sent === 3);
      expect(afterRemoval.filter((each) => each.kid === 'k1').length).toBeGreaterThanOrEqual(4);
      for (const each of afterRemoval)
        expect(each.outcome).toBe(each.kid === 'k1' ? 'invalid-state' : 'done');
      expect(flows.filter((each) => each.kid === 'k2' && each.outcome !== 'done')).toEqual([]);
      const snapshot = (await admin(a, 'keyring')).body as {
        activeKeyId: string;
        fleet: { agree: boolean };
      };
      expect(snapshot).toMatchObject({ activeKeyId: 'k2', fleet: { agree: true } });
      console.log(
        `${adapter}: rotation under load: ${flows.length} flows; ${flows.filter((each) => each.kid === 'k1' && each.outcome === 'done').length} under k1 and ${flows.filter((each) => each.kid === 'k2').length} under k2 completed; ${flows.filter((each) => each.outcome === 'invalid-state').length} under k1 refused after its removal`,
      );
    });
  },
);
