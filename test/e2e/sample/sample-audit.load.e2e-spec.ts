import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { newKeyring } from '../../fixtures/sample-app';
import { recordsOf, spellings } from '../../fixtures/audit/audit-tools';
import { rawRound, rawToolCall, resultText, stateOf } from '../../utils/mcp';
import { openSession } from '../../utils/session-clients';
import {
  ensureSampleBuilt,
  startSampleProcess,
  type SampleProcess,
  type SampleProcessEnv,
} from '../../utils/sample-process';
import { until } from '../../utils/wait';
import { makeSoftHsmToken } from '../../utils/softhsm-token';
import { APPROVE } from '../../utils/sample-calls';

/*
 * The sample as operators run it, with MCP_AUDIT=jsonl:<file>: a transfer in two rounds, a refused
 * replay, a refused bad state, a hidden-tool call, a task with input, a 2025 session, a skill read
 * and a key rotation through the admin API each leave their records, and the shipped verifier
 * (`nestjs-mcp-audit verify`) exits 0 with the public key alone. Then the same with the key in a
 * SoftHSM2 token (MCP_AUDIT_SIGNING_KEY=pkcs11:<label>).
 */

const ADMIN_TOKEN = 'admin-token-3c9f0e51d2b84a77';
const PIN = '731100-2291';
const FORM = { elicitation: { form: {} } };
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: { form: {} } };
const ALICE = { authorization: 'Bearer alice' };
const BOB = { authorization: 'Bearer bob' };
const TRANSFER = { amount: '120', to: 'acct-77' };
const keyring = newKeyring(['k1']);
const ROOT = join(__dirname, '../../..');
/** The source of `nestjs-mcp-audit` (package.json's `bin` is its build: src/index.spec.ts). */
const CLI = join(ROOT, 'src/ext/audit/verify/audit-cli.ts');

/** `nestjs-mcp-audit verify`, run as a command, from its source (always current). */
function verifyCommand(...args: string[]): { status: number | null; out: string } {
  const run = spawnSync(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', CLI, 'verify', ...args],
    { encoding: 'utf8', cwd: ROOT, env: { ...process.env, TS_NODE_PROJECT: 'tsconfig.json' } },
  );
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

let folder: string;
beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'sample-audit-'));
  await ensureSampleBuilt();
}, 180_000);
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const admin = (sample: SampleProcess) => request(sample.url.origin);
const bearer = { Authorization: `Bearer ${ADMIN_TOKEN}` };

describe('the sample with an audit trail in JSON lines and a PEM key', () => {
  let sample: SampleProcess;
  let file: string;
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const staged = randomBytes(32).toString('base64');

  beforeAll(async () => {
    file = join(folder, 'audit.jsonl');
    const keyFile = join(folder, 'audit-key.pem');
    writeFileSync(keyFile, privatePem, { mode: 0o600 });
    sample = await startSampleProcess('express', {
      MCP_ADMIN_TOKEN: ADMIN_TOKEN,
      MCP_KEYRING: keyring.json,
      MCP_AUDIT: `jsonl:${file}`,
      MCP_AUDIT_SIGNING_KEY: keyFile,
    } as SampleProcessEnv);

    // A transfer in two rounds, the same approval again, then a state nobody sealed.
    const asked = await rawToolCall(sample.url, 'transfer_funds', TRANSFER, {
      capabilities: FORM,
      headers: ALICE,
    });
    const approval = {
      capabilities: FORM,
      headers: ALICE,
      requestState: stateOf(asked),
      inputResponses: APPROVE,
    };
    expect(resultText(await rawToolCall(sample.url, 'transfer_funds', TRANSFER, approval))).toBe(
      'Transferred 120 to acct-77',
    );
    expect(
      (await rawToolCall(sample.url, 'transfer_funds', TRANSFER, approval)).body.error?.code,
    ).toBe(-32602);
    expect(
      (
        await rawToolCall(sample.url, 'transfer_funds', TRANSFER, {
          ...approval,
          requestState: 'forged.state',
        })
      ).body.error?.code,
    ).toBe(-32602);
    // A tool bob's role does not show him: answered as an unknown tool.
    const hidden = await rawToolCall(
      sample.url,
      'create_ticket',
      { title: 'x', body: 'y' },
      { headers: BOB },
    );
    expect(hidden.body.error?.message).toContain('Unknown tool');
    // A task that asks for input, answered with tasks/update.
    const created = await rawRound(
      sample.url,
      'tools/call',
      { name: 'export_report', arguments: { dataset: 'customers', rows: 200 } },
      { capabilities: TASKS, headers: ALICE },
    );
    const taskId = (created.body.result as { taskId: string }).taskId;
    const taskStatus = async () =>
      (
        (
          await rawRound(
            sample.url,
            'tasks/get',
            { taskId },
            { capabilities: TASKS, headers: ALICE },
          )
        ).body.result as { status: string }
      ).status;
    await until(async () => (await taskStatus()) === 'input_required', {
      what: 'the task to ask',
      timeoutMs: 20_000,
    });
    await rawRound(
      sample.url,
      'tasks/update',
      {
        taskId,
        inputResponses: { include_personal: { action: 'accept', content: { include: false } } },
      },
      { capabilities: TASKS, headers: ALICE },
    );
    await until(async () => (await taskStatus()) === 'completed', {
      what: 'the task to finish',
      timeoutMs: 20_000,
    });
    // A 2025 session, opened and closed.
    const sessionId = await openSession(sample.url, ALICE);
    await request(sample.url.origin)
      .delete(sample.url.pathname)
      .set({ ...ALICE, 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': '2025-11-25' });
    // A skill read.
    const skill = await rawRound(
      sample.url,
      'resources/read',
      { uri: 'skill://ticket-triage/SKILL.md' },
      { headers: ALICE },
    );
    expect(skill.body.result).toBeDefined();
    // A key rotation through the admin API.
    expect(
      (await admin(sample).post('/admin/keyring/stage').set(bearer).send({ id: 'k2', key: staged }))
        .status,
    ).toBe(200);
    expect(
      (await admin(sample).post('/admin/keyring/activate').set(bearer).send({ id: 'k2' })).status,
    ).toBe(200);
    expect((await admin(sample).get('/admin/audit/public-key').set(bearer)).text).toBe(publicPem);
    expect((await admin(sample).get('/admin/audit/public-key')).status).toBe(401);
    expect((await sample.terminate()).code).not.toBe(1);
  }, 120_000);
  afterAll(() => sample?.stop().catch(() => undefined));

  it('leaves the records of every event, and the shipped verifier exits 0 with the public key alone', () => {
    const records = recordsOf(readFileSync(file, 'utf8'));
    const types = new Set(records.map((record) => record.event_type));
    for (const type of [
      'mcp.input.requested',
      'mcp.input.answered',
      'mcp.call.completed',
      'mcp.call.refused',
      'mcp.task.created',
      'mcp.task.updated',
      'mcp.task.finished',
      'mcp.session.opened',
      'mcp.session.closed',
      'mcp.skill.served',
      'mcp.key.staged',
      'mcp.key.activated',
      'audit.checkpoint',
    ])
      expect([type, types.has(type)]).toEqual([type, true]);
    const refusals = records
      .filter((record) => record.event_type === 'mcp.call.refused')
      .map((record) => [
        record.tool_name,
        record.extensions['nestjs-mcp'].reason,
        record.extensions['nestjs-mcp'].detail ?? null,
      ]);
    expect(refusals).toEqual(
      expect.arrayContaining([
        ['transfer_funds', 'state', 'replayed'],
        ['transfer_funds', 'state', 'malformed'],
        ['create_ticket', 'guard', null],
      ]),
    );
    const transfer = records.find((record) => record.tool_name === 'transfer_funds');
    expect(transfer?.extensions['nestjs-mcp'].arguments).toEqual({ amount: '120', to: 'acct-77' });
    const keyFile = join(folder, 'audit-public.pem');
    writeFileSync(keyFile, publicPem);
    const verified = verifyCommand('--file', file, '--public-key', keyFile);
    expect(verified.out).toContain('OK: every record chains, every checkpoint verifies');
    expect(verified.status).toBe(0);
  });

  it('puts no credential in any record or the log: not the bearer tokens, the admin token, keys or the signing key', () => {
    const text = readFileSync(file, 'utf8');
    const log = sample.log();
    const secrets = [ADMIN_TOKEN, staged, keyring.keys.k1, privatePem.split('\n')[1]];
    for (const secret of secrets)
      for (const spelling of spellings(secret)) {
        expect(text.includes(spelling)).toBe(false);
        expect(log.includes(spelling)).toBe(false);
      }
    // The demo's bearer tokens are user names: no principal is one.
    const principals = new Set(recordsOf(text).map((record) => record.principal_id));
    expect([...principals].some((principal) => /alice|bob|admin-token/.test(principal))).toBe(
      false,
    );
  });
});

describe('the sample with its audit key in a SoftHSM2 token', () => {
  it('signs checkpoints in the token; the public key alone verifies; the PIN is nowhere', async () => {
    const dir = join(folder, 'hsm');
    const token = makeSoftHsmToken(dir, PIN, ['--signing', 'audit']);
    const file = join(folder, 'hsm-audit.jsonl');
    const sample = await startSampleProcess('express', {
      MCP_ADMIN_TOKEN: ADMIN_TOKEN,
      MCP_KEYRING: keyring.json,
      MCP_AUDIT: `jsonl:${file}`,
      MCP_AUDIT_SIGNING_KEY: 'pkcs11:audit',
      PKCS11_MODULE: token.PKCS11_MODULE,
      PKCS11_TOKEN_LABEL: token.PKCS11_TOKEN_LABEL,
      PKCS11_PIN: PIN,
      SOFTHSM2_CONF: token.SOFTHSM2_CONF,
    } as SampleProcessEnv);
    let publicPem: string;
    try {
      const asked = await rawToolCall(sample.url, 'transfer_funds', TRANSFER, {
        capabilities: FORM,
        headers: ALICE,
      });
      await rawToolCall(sample.url, 'transfer_funds', TRANSFER, {
        capabilities: FORM,
        headers: ALICE,
        requestState: stateOf(asked),
        inputResponses: APPROVE,
      });
      publicPem = (await admin(sample).get('/admin/audit/public-key').set(bearer)).text;
    } finally {
      await sample.terminate();
    }
    expect(publicPem).toContain('BEGIN PUBLIC KEY');
    const keyFile = join(folder, 'hsm-public.pem');
    writeFileSync(keyFile, publicPem);
    const verified = verifyCommand('--file', file, '--public-key', keyFile);
    expect(verified.out).toContain('OK');
    expect(verified.status).toBe(0);
    for (const spelling of spellings(PIN)) {
      expect(readFileSync(file, 'utf8').includes(spelling)).toBe(false);
      expect(sample.log().includes(spelling)).toBe(false);
    }
  }, 120_000);
});
