import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AwsKmsKeyWrapper } from '../../../src/entry/aws-kms';
import { startSampleApp, type SampleEnv } from '../../fixtures/sample-app';
import type { TestServer } from '../../utils/bootstrap';
import { startMotoKms, type MotoKms } from '../../utils/moto-kms';
import { ensureSampleBuilt, type SampleProcessEnv } from '../../utils/sample-process';
import { kidOf, resultText, stateOf } from '../../utils/mcp';

import { until } from '../../utils/wait';

import { beginTransfer, completeTransfer, transferAcross } from '../../utils/sample-calls';
import { keyringAdmin } from '../../utils/keyring-admin';
import { pkcs11KeySourceEnv, softHsmTokenForSuite } from '../../utils/softhsm-token';
import { SampleFleet, sampleInstancesForSuite } from '../../utils/sample-fleet';

const ADMIN_TOKEN = 'key-sources-admin-3c9e';
const PIN = '4921';

/** What the tests drive: an app in this process, or the sample as a child process. */
type Served = { readonly url: URL };

/** Both rounds of `transfer_funds` on `server`; the first round's state. */
async function transfer(server: Served): Promise<{ state: string; result: string }> {
  const { state, text } = await transferAcross(server.url);
  return { state, result: text };
}

const admin = (server: Served, action: string, body?: object) =>
  keyringAdmin(server, ADMIN_TOKEN, action, body);

// Each test starts apps or sample processes; on a loaded machine that takes seconds.
jest.setTimeout(90_000);

let savedAdminToken: string | undefined;
/** With `--wrapped d1`, the script prints the wrapped key's material too. */
const hsm = softHsmTokenForSuite<{ wrapped: Record<string, string> }>(PIN, [
  '--resident',
  'k1,k2',
  '--wrapping',
  'wrap',
  '--wrapped',
  'd1',
]);
beforeAll(async () => {
  savedAdminToken = process.env.MCP_ADMIN_TOKEN;
  process.env.MCP_ADMIN_TOKEN = ADMIN_TOKEN;
  // A clean checkout builds the sample here (tsc): minutes on a loaded machine.
  await ensureSampleBuilt();
}, 300_000);

/**
 * The sample as operators run it, a process with the HSM's variables in its environment (SoftHSM
 * reads `SOFTHSM2_CONF` from the real environment, which a Jest test cannot change for itself).
 */
function hsmEnv(env: SampleEnv): SampleProcessEnv {
  return {
    MCP_ADMIN_TOKEN: ADMIN_TOKEN,
    ...pkcs11KeySourceEnv(hsm.token),
    PKCS11_WRAPPING_KEY_LABEL: 'wrap',
    ...env,
  } as SampleProcessEnv;
}
afterAll(() => {
  if (savedAdminToken === undefined) delete process.env.MCP_ADMIN_TOKEN;
  else process.env.MCP_ADMIN_TOKEN = savedAdminToken;
});

describe('keys in an HSM over PKCS#11 (SoftHSM2)', () => {
  const samples = new SampleFleet({ redis: false });
  beforeAll(() => samples.open(), 300_000);
  afterAll(() => samples.close());

  const start = (env: SampleEnv) => samples.start('express', hsmEnv(env));

  it('seals and opens inside the token with a resident key, and rotates to another by label', async () => {
    const server = await start({
      MCP_KEYRING: JSON.stringify({ active: 'k1', keys: { k1: { pkcs11: 'k1' } } }),
    });
    const inFlight = stateOf(await beginTransfer(server.url));
    expect(kidOf(inFlight)).toBe('k1');
    expect((await transfer(server)).result).toBe('Transferred 12.50 to bob');

    const staged = await admin(server, 'stage', { id: 'k2', pkcs11: 'k2' });
    expect(staged.status).toBe(200);
    expect((await admin(server, 'activate', { id: 'k2' })).status).toBe(200);
    const after = await transfer(server);
    expect(kidOf(after.state)).toBe('k2');
    // The flow begun under k1 still completes: k1 stays for verification until removed.
    const completed = await completeTransfer(server.url, inFlight);
    expect(resultText(completed)).toBe('Transferred 12.50 to bob');
    expect(server.log()).not.toContain(PIN);
  });

  it('unwraps a data key wrapped under the token’s wrapping key', async () => {
    const server = await start({
      MCP_KEYRING: JSON.stringify({
        active: 'd1',
        keys: { d1: { pkcs11Wrapped: hsm.token.wrapped.d1 } },
      }),
    });
    const { state, result } = await transfer(server);
    expect(kidOf(state)).toBe('d1');
    expect(result).toBe('Transferred 12.50 to bob');
  });

  it('serves with a token made by the exact commands docs/key-rotation.md gives (no repository script)', async () => {
    const page = readFileSync(join(__dirname, '../../../docs/key-rotation.md'), 'utf8');
    const commands = /<!-- softhsm-token-commands -->\n```bash\n([\s\S]*?)\n```/.exec(page)?.[1];
    expect(commands).toContain('softhsm2-util --init-token');
    const dir = mkdtempSync(join(tmpdir(), 'hsm-docs-'));
    try {
      const pin = '7315';
      const made = spawnSync('bash', ['-euo', 'pipefail', '-c', commands as string], {
        cwd: dir,
        env: { ...process.env, PKCS11_PIN: pin, PKCS11_SO_PIN: '86420' },
        encoding: 'utf8',
      });
      expect({ status: made.status, stderr: made.stderr }).toEqual({ status: 0, stderr: '' });
      // No key's bytes are left on disk: only the token, its configuration and the wrapped blob.
      expect(readdirSync(dir).sort()).toEqual(['d1.wrapped', 'mcp-hsm']);
      const server = await start({
        MCP_KEYRING: JSON.stringify({
          active: 'k1',
          keys: {
            k1: { pkcs11: 'k1' },
            d1: { pkcs11Wrapped: readFileSync(join(dir, 'd1.wrapped'), 'utf8') },
          },
        }),
        SOFTHSM2_CONF: join(dir, 'mcp-hsm/softhsm2.conf'),
        PKCS11_TOKEN_LABEL: 'mcp',
        PKCS11_PIN: pin,
      } as SampleEnv);
      const underK1 = await transfer(server);
      expect({ kid: kidOf(underK1.state), result: underK1.result }).toEqual({
        kid: 'k1',
        result: 'Transferred 12.50 to bob',
      });
      expect((await admin(server, 'activate', { id: 'd1' })).status).toBe(200);
      const underD1 = await transfer(server);
      expect({ kid: kidOf(underD1.state), result: underD1.result }).toEqual({
        kid: 'd1',
        result: 'Transferred 12.50 to bob',
      });
      expect(server.log()).not.toContain(pin);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails startup, closed and without the PIN, for a wrong PIN or a key the token lacks', async () => {
    const wrongPin = await start({
      MCP_KEYRING: JSON.stringify({ active: 'k1', keys: { k1: { pkcs11: 'k1' } } }),
      PKCS11_PIN: '86427',
    }).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(wrongPin?.message).toMatch(/k1/);
    expect(wrongPin?.message).not.toContain('86427');
    const missing = await start({
      MCP_KEYRING: JSON.stringify({ active: 'k9', keys: { k9: { pkcs11: 'no-such-key' } } }),
    }).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(missing?.message).toContain('k9');
  });
});

describe('data keys wrapped by AWS KMS (the official AWS SDK v3 against moto)', () => {
  let kms: MotoKms;
  const servers: TestServer[] = [];
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    kms = await startMotoKms();
    for (const [name, value] of Object.entries(kms.env)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
  }, 60_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await kms?.close();
  });

  const newEntry = async (keyId: string) => {
    const wrapper = new AwsKmsKeyWrapper({ kmsKeyId: kms.keyArn, endpoint: 'nestjs-mcp-sample' });
    try {
      return await wrapper.generateDataKey(keyId);
    } finally {
      wrapper.close();
    }
  };
  const start = async (keys: Record<string, { kms: string }>, active: string) => {
    const server = await startSampleApp('express', {
      MCP_KEY_SOURCE: 'aws-kms',
      MCP_KMS_KEY_ID: kms.keyArn,
      MCP_KEYRING: JSON.stringify({ active, keys }),
    });
    servers.push(server);
    return server;
  };

  it('refuses a blob made for another key id (the encryption context binds it), naming the key', async () => {
    const error = await start({ k3: await newEntry('k1') }, 'k3').then(
      () => undefined,
      (failure: Error) => failure,
    );
    expect(error?.message).toContain(
      'Key "k3" could not be unwrapped (kms): AWS KMS Decrypt failed: InvalidCiphertextException (the blob is not one KMS made for this key id, endpoint and KMS key (its encryption context))',
    );
  });

  it("names KMS's error, never its message (which names the account): a KMS key or alias that does not exist", async () => {
    const entry = await newEntry('k1');
    const account = kms.keyArn.split(':')[4];
    const absentKey = kms.keyArn.replace(/key\/.*$/, 'key/00000000-1111-2222-3333-444444444444');
    const failures = [];
    for (const kmsKeyId of [absentKey, 'alias/no-such-alias']) {
      const wrapper = new AwsKmsKeyWrapper({ kmsKeyId, endpoint: 'nestjs-mcp-sample' });
      try {
        failures.push(
          await wrapper.unwrap('k1', entry).then(
            () => 'unwrapped',
            (e: Error) => e.message,
          ),
        );
        failures.push(
          await wrapper.generateDataKey('k2').then(
            () => 'made',
            (e: Error) => e.message,
          ),
        );
      } finally {
        wrapper.close();
      }
    }
    expect(failures).toEqual([
      'AWS KMS Decrypt failed: NotFoundException (no such KMS key)',
      'AWS KMS GenerateDataKey failed: NotFoundException (no such KMS key)',
      'AWS KMS Decrypt failed: NotFoundException (no such KMS key)',
      'AWS KMS GenerateDataKey failed: NotFoundException (no such KMS key)',
    ]);
    for (const failure of failures) expect(failure).not.toContain(account);
  });

  it('unwraps at load and at stage; with KMS gone, every round is still served and a stage changes nothing', async () => {
    const server = await start({ k1: await newEntry('k1') }, 'k1');
    expect((await transfer(server)).result).toBe('Transferred 12.50 to bob');
    const k2 = await newEntry('k2');
    expect((await admin(server, 'stage', { id: 'k2', ...k2 })).status).toBe(200);
    expect((await admin(server, 'activate', { id: 'k2' })).status).toBe(200);
    const k5 = await newEntry('k5');

    // KMS unreachable from here on: nothing per request needs it.
    await kms.stop();
    for (let i = 0; i < 5; i++) {
      const { state, result } = await transfer(server);
      expect(kidOf(state)).toBe('k2');
      expect(result).toBe('Transferred 12.50 to bob');
    }
    const refused = await admin(server, 'stage', { id: 'k5', ...k5 });
    // The failure is named, not the endpoint: no address, no port.
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      statusCode: 400,
      message:
        'Key "k5" could not be unwrapped (kms): AWS KMS Decrypt failed: KMS unreachable (ECONNREFUSED)',
    });
    expect(refused.text).not.toContain(new URL(kms.url).port);
    expect(refused.text).not.toContain(k5.kms);
    const snapshot = (await admin(server, 'keyring')).body as { keys: { id: string }[] };
    expect(snapshot.keys.map((key) => key.id).sort()).toEqual(['k1', 'k2']);
  });

  it('fails startup with a clear message when KMS cannot be reached', async () => {
    // The emulator was stopped by the test before: its port refuses connections.
    const error = await start({ k1: { kms: Buffer.alloc(64, 1).toString('base64') } }, 'k1').then(
      () => undefined,
      (failure: Error) => failure,
    );
    expect(error?.message).toContain(
      'Key "k1" could not be unwrapped (kms): AWS KMS Decrypt failed: KMS unreachable (ECONNREFUSED)',
    );
    expect(error?.message).not.toContain(new URL(kms.url).port);
  });
});

describe('rotation across a fleet sharing Redis, in one call', () => {
  const servers = sampleInstancesForSuite(
    'express',
    'instance',
    (fleet) =>
      hsmEnv({
        MCP_KEYRING: JSON.stringify({ active: 'k1', keys: { k1: { pkcs11: 'k1' } } }),
        ...fleet,
      }),
    { timeoutMs: 180_000 },
  );

  it('stages and activates on one instance; every instance follows and the snapshot shows they agree', async () => {
    const [a, b] = servers;
    // Flows begun under k1 before the rotation: one completes after it, two after k1 is removed.
    const begin = async () => stateOf(await beginTransfer(a.url));
    const underK1 = [await begin(), await begin(), await begin()];
    expect(underK1.map(kidOf)).toEqual(['k1', 'k1', 'k1']);
    const complete = (server: Served, state: string) => completeTransfer(server.url, state);
    expect((await admin(a, 'stage', { id: 'k2', pkcs11: 'k2' })).status).toBe(200);
    await until(async () =>
      ((await admin(b, 'keyring')).body as { keys: { id: string }[] }).keys.some(
        (key) => key.id === 'k2',
      ),
    );
    const activated = await admin(a, 'activate', { id: 'k2' });
    expect(activated.status).toBe(200);
    await until(
      async () =>
        ((await admin(b, 'keyring')).body as { activeKeyId: string }).activeKeyId === 'k2',
    );
    // A flow begun on A under k2 completes on B.
    const { state, text } = await transferAcross(a.url, b.url);
    expect(kidOf(state)).toBe('k2');
    expect(text).toBe('Transferred 12.50 to bob');
    const snapshot = (await admin(a, 'keyring')).body as {
      fleet?: { agree: boolean; instances: { name: string; activeKeyId: string }[] };
    };
    expect(snapshot.fleet?.agree).toBe(true);
    // k1 still opens on B until it is removed; then state sealed under it is refused on both.
    expect(resultText(await complete(b, underK1[0]))).toBe('Transferred 12.50 to bob');
    const removed = await admin(a, 'remove', { id: 'k1' });
    expect(removed.status).toBe(200);
    await until(async () =>
      ((await admin(b, 'keyring')).body as { keys: { id: string }[] }).keys.every(
        (key) => key.id !== 'k1',
      ),
    );
    for (const [server, state] of [
      [a, underK1[1]],
      [b, underK1[2]],
    ] as const)
      expect((await complete(server, state)).body.error).toEqual({
        code: -32602,
        message: 'Invalid request state',
      });
    expect(
      snapshot.fleet?.instances.map((instance) => [instance.name, instance.activeKeyId]).sort(),
    ).toEqual([
      ['instance-a', 'k2'],
      ['instance-b', 'k2'],
    ]);
  });

  it('refuses raw material on a fleet (it never travels), naming why', async () => {
    const refused = await admin(servers[0], 'stage', {
      id: 'k7',
      key: Buffer.alloc(32, 7).toString('base64'),
    });
    expect(refused.status).toBe(400);
    expect(refused.text).not.toContain(Buffer.alloc(32, 7).toString('base64'));
  });
});
