import request from 'supertest';
import { RequestStateFixturesModule } from '../request-state/request-state.fixtures';
import {
  CapturingLogger,
  keyringOf,
  materialSpellings,
  newKeyMaterial,
  startSampleApp,
} from '../../fixtures/sample-app';
import { ADAPTERS, type TestServer } from '../../utils/bootstrap';
import { resultText, stateOf, type RawRoundResponse } from '../../utils/mcp';

import { INVALID_STATE } from '../../utils/expect-rpc';
import { beginTransfer, completeTransfer } from '../../utils/sample-calls';

const ADMIN_TOKEN = 'rotation-admin-token-5b1f';

interface Snapshot {
  activeKeyId: string;
  keys: { id: string; role: 'active' | 'verification' }[];
  ephemeral: boolean;
  fingerprint: { version: number; profile: string; value: string };
}

function kidOf(state: string): string {
  return Buffer.from(state.split('.')[1], 'base64url').toString('latin1');
}

describe.each(ADAPTERS)('key rotation over %s', (adapter) => {
  const material = { k1: newKeyMaterial(), k2: newKeyMaterial() };
  const logger = new CapturingLogger();
  let savedToken: string | undefined;
  /** Two instances of one fleet. */
  let a: TestServer;
  let b: TestServer;
  /** Every response body the admin API sent, to check none carries key material. */
  const adminBodies: string[] = [];

  beforeAll(async () => {
    savedToken = process.env.MCP_ADMIN_TOKEN;
    process.env.MCP_ADMIN_TOKEN = ADMIN_TOKEN;
    const keyring = keyringOf({ k1: material.k1 }, 'k1');
    a = await startSampleApp(
      adapter,
      { MCP_KEYRING: keyring.json },
      { extraImports: [RequestStateFixturesModule], logger },
    );
    b = await startSampleApp(
      adapter,
      { MCP_KEYRING: keyring.json },
      { extraImports: [RequestStateFixturesModule], logger },
    );
  });

  afterAll(async () => {
    if (savedToken === undefined) delete process.env.MCP_ADMIN_TOKEN;
    else process.env.MCP_ADMIN_TOKEN = savedToken;
    await a?.close();
    await b?.close();
  });

  async function snapshot(server: TestServer): Promise<Snapshot> {
    const response = await request(server.origin)
      .get('/admin/keyring')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    adminBodies.push(response.text);
    expect(response.status).toBe(200);
    return response.body as Snapshot;
  }

  async function admin(
    server: TestServer,
    action: 'stage' | 'activate' | 'remove',
    body: Record<string, string>,
  ) {
    const response = await request(server.origin)
      .post(`/admin/keyring/${action}`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send(body);
    adminBodies.push(response.text);
    return response;
  }

  async function expectOk(
    server: TestServer,
    action: 'stage' | 'activate' | 'remove',
    body: Record<string, string>,
  ): Promise<Snapshot> {
    const response = await admin(server, action, body);
    expect(response.status).toBe(200);
    return response.body as Snapshot;
  }

  async function begin(server: TestServer): Promise<string> {
    return stateOf(await beginTransfer(server.url));
  }

  function complete(server: TestServer, state: string): Promise<RawRoundResponse> {
    return completeTransfer(server.url, state);
  }

  it('rotates k1 to k2 across two instances without breaking a flow in flight', async () => {
    // A flow starts on A under k1.
    const inFlight = await begin(a);
    expect(kidOf(inFlight)).toBe('k1');
    const initial = await snapshot(a);
    expect(initial).toEqual({
      activeKeyId: 'k1',
      keys: [{ id: 'k1', role: 'active' }],
      ephemeral: false,
      fingerprint: {
        version: 2,
        profile: expect.any(String),
        value: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    });
    expect(await snapshot(b)).toEqual(initial);

    // 1. Stage k2 everywhere. Half-way, the fleet's fingerprints disagree.
    const stagedOnA = await expectOk(a, 'stage', { id: 'k2', key: material.k2 });
    expect(stagedOnA.keys).toEqual([
      { id: 'k1', role: 'active' },
      { id: 'k2', role: 'verification' },
    ]);
    expect(stagedOnA.fingerprint).not.toEqual((await snapshot(b)).fingerprint);
    await expectOk(b, 'stage', { id: 'k2', key: material.k2 });
    // Staging is idempotent for identical bytes.
    await expectOk(b, 'stage', { id: 'k2', key: material.k2 });

    // 2. Compare fingerprints: all three fields equal.
    const [stagedA, stagedB] = [await snapshot(a), await snapshot(b)];
    expect(stagedA).toEqual(stagedB);
    expect(stagedA.fingerprint).not.toEqual(initial.fingerprint);

    // Nothing changed for clients yet: new state is still sealed with k1.
    const sealedBeforeActivation = await begin(b);
    expect(kidOf(sealedBeforeActivation)).toBe('k1');

    // 3. Activate k2 everywhere.
    const activated = await expectOk(a, 'activate', { id: 'k2' });
    await expectOk(b, 'activate', { id: 'k2' });
    expect(activated.activeKeyId).toBe('k2');
    expect(activated.keys).toEqual([
      { id: 'k2', role: 'active' },
      { id: 'k1', role: 'verification' },
    ]);
    expect((await snapshot(a)).fingerprint).toEqual((await snapshot(b)).fingerprint);

    // The flow in flight (sealed with k1 on A) completes on B.
    expect(resultText(await complete(b, inFlight))).toBe('Transferred 12.50 to bob');

    // A new flow gets a state sealed with k2, and it continues on the other instance.
    const fresh = await begin(a);
    expect(kidOf(fresh)).toBe('k2');
    expect(fresh.split('.')[1]).not.toBe(inFlight.split('.')[1]);
    expect(resultText(await complete(b, fresh))).toBe('Transferred 12.50 to bob');

    // 5. Remove k1 everywhere: k1-sealed state stops opening, k2-sealed state still opens.
    const removed = await expectOk(a, 'remove', { id: 'k1' });
    await expectOk(b, 'remove', { id: 'k1' });
    expect(removed.keys).toEqual([{ id: 'k2', role: 'active' }]);
    expect((await snapshot(a)).fingerprint).toEqual((await snapshot(b)).fingerprint);
    for (const server of [a, b]) {
      const mark = logger.lines.length;
      const refused = await complete(server, sealedBeforeActivation);
      expect(refused.body.error).toEqual(INVALID_STATE);
      expect(
        logger.lines
          .slice(mark)
          .map((line) => line.text)
          .join('\n'),
      ).toContain('request state rejected: unknown_key');
    }
    expect(resultText(await complete(a, await begin(b)))).toBe('Transferred 12.50 to bob');
  });

  it('tells apart a key id staged with different bytes on two instances', async () => {
    const before = [await snapshot(a), await snapshot(b)];
    expect(before[0].fingerprint).toEqual(before[1].fingerprint);
    await expectOk(a, 'stage', { id: 'k3', key: newKeyMaterial() });
    await expectOk(b, 'stage', { id: 'k3', key: newKeyMaterial() });
    const [onA, onB] = [await snapshot(a), await snapshot(b)];
    expect(onA.keys).toEqual(onB.keys);
    expect(onA.fingerprint.value).not.toBe(onB.fingerprint.value);
    await expectOk(a, 'remove', { id: 'k3' });
    await expectOk(b, 'remove', { id: 'k3' });
    expect((await snapshot(a)).fingerprint).toEqual((await snapshot(b)).fingerprint);
  });

  it('refuses conflicting or unsafe keyring changes with 400, naming the key id only', async () => {
    const conflicting = newKeyMaterial();
    await expectOk(a, 'stage', { id: 'k4', key: newKeyMaterial() });
    const cases: [string, Record<string, string>, RegExp][] = [
      ['stage', { id: 'k4', key: conflicting }, /"k4" already exists with different material/],
      [
        'stage',
        { id: 'k5', key: Buffer.alloc(16, 7).toString('base64') },
        /"k5" needs at least 32 bytes/,
      ],
      ['stage', { id: 'k6', key: 'not base64 at all!' }, /"k6" must be bytes or base64/],
      ['stage', { id: 'bad id', key: newKeyMaterial() }, /Key ids are 1-64 characters/],
      ['activate', { id: 'nope' }, /"nope" is not staged/],
      ['remove', { id: 'k2' }, /"k2" is active/],
      ['remove', { id: 'nope' }, /"nope" is not in the keyring/],
    ];
    for (const [action, body, message] of cases) {
      const response = await admin(a, action as 'stage', body);
      expect({ action, status: response.status }).toEqual({ action, status: 400 });
      expect((response.body as { message: string }).message).toMatch(message);
      expect(response.text).not.toContain(conflicting);
    }
    expect((await snapshot(a)).activeKeyId).toBe('k2');
    await expectOk(a, 'remove', { id: 'k4' });
  });

  it('requires the admin bearer token (401) and never answers with key material', async () => {
    const before = await snapshot(a);
    for (const authorization of [
      undefined,
      'Bearer wrong-token',
      ADMIN_TOKEN,
      `Bearer ${ADMIN_TOKEN}x`,
    ]) {
      const get = request(a.origin).get('/admin/keyring');
      const stage = request(a.origin).post('/admin/keyring/stage');
      if (authorization) {
        get.set('Authorization', authorization);
        stage.set('Authorization', authorization);
      }
      expect((await get).status).toBe(401);
      expect((await stage.send({ id: 'intruder', key: newKeyMaterial() })).status).toBe(401);
    }
    expect(await snapshot(a)).toEqual(before);

    const everything = adminBodies.join('\n');
    expect(everything).toContain('"fingerprint"');
    for (const key of Object.values(material)) {
      for (const spelling of materialSpellings(key)) expect(everything).not.toContain(spelling);
    }
  });

  it('answers 404 on every admin route without MCP_ADMIN_TOKEN', async () => {
    delete process.env.MCP_ADMIN_TOKEN;
    try {
      const responses = await Promise.all([
        request(a.origin).get('/admin/keyring').set('Authorization', `Bearer ${ADMIN_TOKEN}`),
        request(a.origin).get('/admin/keyring'),
        request(a.origin).post('/admin/keyring/stage').send({ id: 'k9', key: newKeyMaterial() }),
        request(a.origin)
          .post('/admin/keyring/activate')
          .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
          .send({ id: 'k2' }),
        request(a.origin)
          .post('/admin/keyring/remove')
          .set('Authorization', 'Bearer ')
          .send({ id: 'k2' }),
      ]);
      expect(responses.map((response) => response.status)).toEqual([404, 404, 404, 404, 404]);
    } finally {
      process.env.MCP_ADMIN_TOKEN = ADMIN_TOKEN;
    }
    expect((await snapshot(a)).keys.map((key) => key.id)).toEqual(['k2']);
  });

  it('uses an ephemeral key, loudly, without a keyring; its state opens nowhere else', async () => {
    const mark = logger.lines.length;
    const ephemeral = await startSampleApp(adapter, {}, { logger });
    try {
      const warning = logger.lines.slice(mark).find((line) => line.text.includes('EPHEMERAL'));
      expect(warning?.level).toBe('warn');
      const view = await snapshot(ephemeral);
      expect(view).toMatchObject({
        ephemeral: true,
        activeKeyId: expect.stringMatching(/^ephemeral-[0-9a-f]+$/),
      });
      const state = await begin(ephemeral);
      expect(kidOf(state)).toBe(view.activeKeyId);
      expect(resultText(await complete(ephemeral, state))).toBe('Transferred 12.50 to bob');
      expect((await complete(a, await begin(ephemeral))).body.error).toEqual(INVALID_STATE);
    } finally {
      await ephemeral.close();
    }
  });

  it('never logged key material', () => {
    const log = logger.text();
    expect(log).toContain('unknown_key');
    for (const key of Object.values(material)) {
      for (const spelling of materialSpellings(key)) expect(log).not.toContain(spelling);
    }
  });
});
