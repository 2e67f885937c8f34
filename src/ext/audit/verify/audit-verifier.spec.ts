import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { eventHashOf } from '../audit-chain';
import { draft } from '../audit-drafts';
import { AuditWriter } from '../audit-writer';
import { PemAuditSigner } from '../signing/pem-audit-signer';
import { JsonLinesAuditSink } from '../sinks/jsonl-audit.sink';
import { main } from './audit-cli';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AuditJson = Record<string, any>;

/*
 * The verifier against a real trail (12 records, a checkpoint every 5, a final one) and each way
 * of tampering with it the issue names: the command exits 1 and names the first bad record — its
 * line and event_id — and why; 0 for the trail as written; 2 for usage and I/O errors.
 */

let folder: string;
let trail: string;
let publicKey: string;
let lines: string[];

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'audit-verify-'));
  trail = join(folder, 'trail.jsonl');
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signer = new PemAuditSigner(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  publicKey = join(folder, 'public.pem');
  writeFileSync(publicKey, await signer.publicKeyPem());
  const writer = new AuditWriter(
    new JsonLinesAuditSink(trail),
    signer,
    {
      instance: 'instance-a',
      sinkName: 'jsonl',
      checkpointEvery: 5,
      checkpointIntervalMs: 60_000,
      queueBound: 100,
      strictTimeoutMs: 1_000,
      countDropped: () => undefined,
    },
    new Logger('test'),
  );
  for (let index = 1; index <= 12; index++)
    await writer.addAndWait(
      draft('mcp.call.completed', `user:${index}`, 'transfer', 'allowed', { n: String(index) }),
    );
  await writer.close();
  lines = readFileSync(trail, 'utf8').trim().split('\n');
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Runs `nestjs-mcp-audit verify` over `body`; answers its status and what it printed. */
async function verify(
  body: string[],
  ...extra: string[]
): Promise<{ status: number; out: string }> {
  const file = join(folder, `case-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(file, `${body.join('\n')}\n`);
  let out = '';
  const sink = { write: (text: string) => ((out += text), true) };
  const status = await main(['verify', '--file', file, '--public-key', publicKey, ...extra], sink);
  return { status, out };
}

const eventIdAt = (line: number) => (JSON.parse(lines[line - 1]) as { event_id: string }).event_id;
const types = () => lines.map((line) => (JSON.parse(line) as { event_type: string }).event_type);

describe('nestjs-mcp-audit verify', () => {
  it('exits 0 for the trail as written, checkpoints included', async () => {
    expect(types().filter((type) => type === 'audit.checkpoint')).toHaveLength(3);
    const { status, out } = await verify(lines);
    expect(out).toContain('OK: every record chains, every checkpoint verifies');
    expect(status).toBe(0);
  });

  it('names an edited record', async () => {
    const edited = [...lines];
    edited[3] = edited[3].replace('"user:4"', '"user:mallory"');
    const { status, out } = await verify(edited);
    expect(status).toBe(1);
    expect(out).toContain(`FAILED at record 4, event_id ${eventIdAt(4)}: edited`);
  });

  it('names the record after a deleted one', async () => {
    const { status, out } = await verify(lines.filter((_, at) => at !== 2));
    expect(status).toBe(1);
    expect(out).toContain(`event_id ${eventIdAt(4)}: missing`);
    expect(out).toContain('FAILED at record 3,');
  });

  it('names the first of two swapped records', async () => {
    const swapped = [...lines];
    [swapped[1], swapped[2]] = [swapped[2], swapped[1]];
    const { status, out } = await verify(swapped);
    expect(status).toBe(1);
    expect(out).toContain(`FAILED at record 2, event_id ${eventIdAt(3)}: reordered`);
  });

  it('names a forged record inserted with a valid hash and link', async () => {
    const before = JSON.parse(lines[6]) as AuditJson;
    const forged: AuditJson = {
      ...before,
      event_id: 'forged-0001',
      principal_id: 'user:mallory',
      previous_hash: before.event_hash,
      extensions: {
        'nestjs-mcp': {
          ...before.extensions['nestjs-mcp'],
          seq: String(Number(before.extensions['nestjs-mcp'].seq) + 1),
        },
      },
    };
    forged.event_hash = eventHashOf(forged);
    const inserted = [...lines.slice(0, 7), JSON.stringify(forged), ...lines.slice(7)];
    const { status, out } = await verify(inserted);
    expect(status).toBe(1);
    expect(out).toContain('FAILED at record 8, event_id forged-0001: inserted');
  });

  it('names a checkpoint whose signature was changed (and its hash made to match)', async () => {
    const last = JSON.parse(lines[lines.length - 1]) as AuditJson;
    const checkpoint = last.extensions['nestjs-mcp'].checkpoint;
    const signature = Buffer.from(checkpoint.signature, 'base64url');
    signature[10] ^= 0xff;
    checkpoint.signature = signature.toString('base64url');
    last.event_hash = eventHashOf(last);
    const { status, out } = await verify([...lines.slice(0, -1), JSON.stringify(last)]);
    expect(status).toBe(1);
    expect(out).toContain(`FAILED at record ${lines.length}, event_id ${last.event_id}: signature`);
  });

  it('reports a tail cut after the last checkpoint, and counts what nothing signed', async () => {
    const cut = lines.slice(0, -2);
    const { status, out } = await verify(cut);
    expect(status).toBe(1);
    expect(out).toContain(': unsigned —');
    expect(out).toMatch(/; [1-9]\d* after the last checkpoint/);
    const allowed = await verify(cut, '--allow-unsigned-tail');
    expect(allowed.status).toBe(0);
    expect(allowed.out).toMatch(/; [1-9]\d* after the last checkpoint/);
  });

  it('exits 2 for usage and I/O errors', async () => {
    const sink = { write: () => true };
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await main(['verify', '--file', trail], sink)).toBe(2);
      expect(await main(['check', '--file', trail, '--public-key', publicKey], sink)).toBe(2);
      expect(
        await main(['verify', '--file', join(folder, 'none'), '--public-key', publicKey], sink),
      ).toBe(2);
      expect(
        await main(['verify', '--file', trail, '--public-key', join(folder, 'none.pem')], sink),
      ).toBe(2);
    } finally {
      stderr.mockRestore();
    }
  });
});
