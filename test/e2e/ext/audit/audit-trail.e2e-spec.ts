import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { Module } from '@nestjs/common';
import { KeyringManager, McpModule } from '../../../../src/index';
import { PemAuditSigner } from '../../../../src/entry/audit';
import { verifyAuditTrail } from '../../../../src/entry/audit';
import { newKeyMaterial, newKeyring } from '../../../fixtures/sample-app';
import {
  ANSWER_SECRET,
  AuditSideEffects,
  AuditTools,
  type AuditJson,
  recordsOf,
  spellings,
  tokenUserPartition,
  TRANSFER_PIN,
  USER_TOKENS,
} from '../../../fixtures/audit/audit-tools';
import { ADAPTERS, startTestServer, type TestServer } from '../../../utils/bootstrap';
import { rawToolCall, stateOf } from '../../../utils/mcp';

const FORM = { elicitation: { form: {} } };
const ALICE = { authorization: 'Bearer tok-alice-7d0c1e4b9a' };

function pemPair(): { privatePem: string; publicPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

describe.each(ADAPTERS)('the audit trail in JSON lines over %s', (adapter) => {
  let folder: string;
  let file: string;
  let server: TestServer;
  let effects: AuditSideEffects;
  const key = pemPair();
  const keyring = newKeyring(['k1']);
  const rotated = newKeyMaterial();

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'audit-'));
    file = join(folder, 'audit.jsonl');
    effects = new AuditSideEffects();
    @Module({
      imports: [
        McpModule.forRoot({
          keyring: { active: keyring.active, keys: { ...keyring.keys } },
          identity: { partitionResolver: tokenUserPartition },
          audit: { file, signer: new PemAuditSigner(key.privatePem), checkpointEvery: 4 },
        }),
      ],
      providers: [AuditTools, { provide: AuditSideEffects, useValue: effects }],
    })
    class AuditedApp {}
    server = await startTestServer(adapter, { imports: [AuditedApp] });

    // A transfer in two rounds, then the same approval again (a replay), then a forged state.
    const args = { amount: 250, to: 'acct-9', pin: TRANSFER_PIN };
    const first = await rawToolCall(server.url, 'transfer', args, {
      capabilities: FORM,
      headers: ALICE,
    });
    const answers = {
      approval: { action: 'accept', content: { approve: true, note: ANSWER_SECRET } },
    };
    const round = {
      capabilities: FORM,
      headers: ALICE,
      requestState: stateOf(first),
      inputResponses: answers,
    };
    await rawToolCall(server.url, 'transfer', args, round);
    await rawToolCall(server.url, 'transfer', args, round);
    await rawToolCall(server.url, 'transfer', args, { ...round, requestState: 'not.a.state' });
    await rawToolCall(server.url, 'plain', {}, { headers: ALICE });
    await rawToolCall(server.url, 'hidden', {}, { headers: ALICE });
    await rawToolCall(server.url, 'no_such_tool', {}, { headers: ALICE });
    server.app.get(KeyringManager).rotateActiveKey('k2', rotated);
    await server.close();
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  const records = () => recordsOf(readFileSync(file, 'utf8'));
  const ours = (record: AuditJson | undefined) => record?.extensions['nestjs-mcp'];

  it('records each round of a flow, its ask and its answer by key, with two fields in clear', () => {
    const transfer = records().filter((record) => record.tool_name === 'transfer');
    const asked = transfer.find((record) => record.event_type === 'mcp.input.requested');
    expect(asked).toMatchObject({ principal_id: 'user:alice', outcome: 'deferred' });
    expect(ours(asked)).toMatchObject({
      round: '1',
      asked: [{ key: 'approval', kind: 'elicitation.form' }],
      arguments: { amount: '250', to: 'acct-9' },
      arguments_digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      era: '2026-07-28',
    });
    const answered = transfer.find((record) => record.event_type === 'mcp.input.answered');
    expect(ours(answered)).toMatchObject({
      round: '2',
      answered: [{ key: 'approval', action: 'accept' }],
    });
    const completed = transfer.find((record) => record.event_type === 'mcp.call.completed');
    expect(completed).toMatchObject({ outcome: 'allowed', principal_id: 'user:alice' });
    expect(ours(completed)).toMatchObject({ round: '2', flow_id: ours(asked).flow_id });
    expect(ours(completed).result_digest).toMatch(/^sha256:/);
  });

  it('records each refusal with its reason: a replay, a bad state, a hidden and an unknown tool', () => {
    const refused = records().filter((record) => record.event_type === 'mcp.call.refused');
    const reasons = refused.map((record) => [
      record.tool_name,
      ours(record).reason,
      ours(record).detail ?? null,
      ours(record).code,
    ]);
    expect(reasons).toEqual(
      expect.arrayContaining([
        ['transfer', 'state', 'replayed', '-32602'],
        ['transfer', 'state', 'malformed', '-32602'],
        ['hidden', 'guard', null, '-32003'],
        ['no_such_tool', 'unknown_target', null, '-32602'],
      ]),
    );
    expect(refused.every((record) => record.outcome === 'denied')).toBe(true);
    expect(effects.transfers).toBe(1);
  });

  it('records key changes, and a plain call', () => {
    const types = records().map((record) => record.event_type);
    expect(types).toEqual(
      expect.arrayContaining(['mcp.key.staged', 'mcp.key.activated', 'mcp.call.completed']),
    );
    const staged = records().find((record) => record.event_type === 'mcp.key.staged');
    expect(staged).toMatchObject({ principal_id: 'system', tool_name: null });
    expect(ours(staged)).toMatchObject({ key_id: 'k2', scope: 'instance' });
  });

  it('holds no secret: no PIN, form answer, bearer token or key, raw or encoded', () => {
    const text = readFileSync(file, 'utf8');
    const secrets = [
      TRANSFER_PIN,
      ANSWER_SECRET,
      ...Object.keys(USER_TOKENS),
      keyring.keys.k1,
      rotated,
      key.privatePem.split('\n')[1],
    ];
    for (const secret of secrets)
      for (const spelling of spellings(secret))
        expect([secret, text.includes(spelling)]).toEqual([secret, false]);
    for (const material of [keyring.keys.k1, rotated]) {
      const bytes = Buffer.from(material, 'base64');
      for (const spelling of [bytes.toString('base64url'), bytes.toString('hex')])
        expect(text.includes(spelling)).toBe(false);
    }
  });

  it('chains every record, keeps numbers out of the hashed body, and verifies with the public key alone', async () => {
    const all = records();
    expect(all.at(-1)).toMatchObject({ event_type: 'audit.checkpoint' });
    expect(ours(all.at(-1)).checkpoint.final).toBe(true);
    const numbers = (value: unknown): boolean =>
      typeof value === 'number' ||
      (value !== null && typeof value === 'object' && Object.values(value).some(numbers));
    expect(all.filter(numbers)).toEqual([]);
    for (const [at, record] of all.entries())
      if (at > 0) expect(record.previous_hash).toBe(all[at - 1].event_hash);
    const verdict = await verifyAuditTrail({ file }, { publicKeyPem: key.publicPem });
    expect(verdict).toMatchObject({ ok: true, chains: 1, unsigned: 0 });
    expect(verdict.checkpoints).toBeGreaterThanOrEqual(2);
    const other = pemPair();
    const wrongKey = await verifyAuditTrail({ file }, { publicKeyPem: other.publicPem });
    expect(wrongKey.firstBad?.problem).toBe('signature');
  });
});
