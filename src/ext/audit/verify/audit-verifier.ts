import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { checkpointSigningInput, eventHashOf, ownFields } from '../audit-chain';
import { keyIdOf } from '../audit-checkpoint';
import { chainProblem, type ChainEntry } from './chain-walk';
import type {
  AuditEntry,
  AuditProblem,
  AuditSource,
  AuditVerdict,
  AuditVerifyOptions,
} from './audit-verdict';
import { auditFileEntries, auditStreamEntries } from './audit-sources';

interface Problem {
  readonly entry: AuditEntry;
  readonly eventId: string | null;
  readonly problem: AuditProblem;
  readonly message: string;
}

/**
 * Verifies an audit trail (docs/audit.md#the-verifier): every record's `event_hash`, every
 * chain's links (one per instance), every checkpoint's signature with the public key alone, and
 * that each head a checkpoint signed is there. Names the first bad record in the order read.
 * `nestjs-mcp-audit verify` runs it over a file or a Redis stream.
 *
 * @example
 * ```ts
 * const verdict = await verifyAuditTrail({ file: 'audit.jsonl' }, { publicKeyPem });
 * if (!verdict.ok) console.error(verdict.firstBad);
 * ```
 * @publicApi
 */
export async function verifyAuditTrail(
  source: AuditSource,
  options: AuditVerifyOptions,
): Promise<AuditVerdict> {
  const entries =
    'file' in source
      ? auditFileEntries(source.file)
      : 'redis' in source
        ? auditStreamEntries(source.redis, source.stream)
        : source;
  const key = createPublicKey(options.publicKeyPem);
  const keyId = keyIdOf(key.export({ type: 'spki', format: 'pem' }).toString());
  const problems: Problem[] = [];
  const chains = new Map<string, ChainEntry[]>();
  const checkpoints: { entry: AuditEntry; record: Record<string, unknown> }[] = [];
  const started = new Set<string>();
  const ended = new Set<string>();
  let records = 0;
  for await (const entry of entries) {
    records++;
    const record = parsed(entry.text);
    const own = record && ownFields(record);
    const eventId = typeof record?.event_id === 'string' ? record.event_id : null;
    const seq = Number(own?.seq);
    if (!record || !own || typeof own.instance !== 'string' || !Number.isSafeInteger(seq)) {
      problems.push({ entry, eventId, problem: 'malformed', message: 'not an audit record' });
      continue;
    }
    if (eventHashOf(record) !== record.event_hash)
      problems.push({
        entry,
        eventId,
        problem: 'edited',
        message: 'its event_hash does not match its contents',
      });
    const chain = chains.get(own.instance) ?? [];
    chains.set(own.instance, chain);
    chain.push({
      entry,
      eventId,
      seq,
      hash: String(record.event_hash),
      previous: (record.previous_hash as string | null) ?? null,
    });
    if (record.event_type === 'audit.checkpoint') checkpoints.push({ entry, record });
    const callId = typeof own.call_id === 'string' ? own.call_id : undefined;
    if (callId && record.event_type === 'mcp.call.started') started.add(callId);
    else if (callId && record.event_type !== 'mcp.input.answered') ended.add(callId);
  }
  for (const [instance, chain] of chains) {
    const problem = chainProblem(instance, chain);
    if (problem) problems.push(problem);
  }
  const covered = new Map<string, number>();
  for (const { entry, record } of checkpoints)
    checkCheckpoint(entry, record, { key, keyId, chains, covered, problems });
  let unsigned = 0;
  for (const [instance, chain] of chains) {
    const after = chain.filter((each) => each.seq > (covered.get(instance) ?? 0));
    unsigned += after.length;
    if (after.length > 0 && !options.allowUnsignedTail)
      problems.push({
        entry: after[0].entry,
        eventId: after[0].eventId,
        problem: 'unsigned',
        message: `${after.length} record(s) of instance ${instance} come after its last checkpoint: nothing signed them (a trail still being written, or a truncated one)`,
      });
  }
  // A record after the last good checkpoint is unsigned because of what went wrong before it (a
  // signature, a break): that is named first.
  problems.sort(
    (a, b) =>
      Number(a.problem === 'unsigned') - Number(b.problem === 'unsigned') ||
      a.entry.position - b.entry.position,
  );
  const first = problems[0];
  return {
    ok: first === undefined,
    records,
    chains: chains.size,
    checkpoints: checkpoints.length,
    unsigned,
    startedWithoutOutcome: [...started].filter((id) => !ended.has(id)),
    ...(first && {
      firstBad: {
        position: first.entry.position,
        ...(first.entry.id !== undefined && { id: first.entry.id }),
        eventId: first.eventId,
        problem: first.problem,
        message: first.message,
      },
    }),
  };
}

function parsed(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** A checkpoint's signature, and that each head it signed is in its chain, before it. */
function checkCheckpoint(
  entry: AuditEntry,
  record: Record<string, unknown>,
  trail: {
    key: KeyObject;
    keyId: string;
    chains: Map<string, ChainEntry[]>;
    covered: Map<string, number>;
    problems: Problem[];
  },
): void {
  const eventId = typeof record.event_id === 'string' ? record.event_id : null;
  const checkpoint = (ownFields(record)?.checkpoint ?? {}) as Record<string, unknown>;
  const bad = (problem: AuditProblem, message: string) =>
    trail.problems.push({ entry, eventId, problem, message });
  const signature = Buffer.from(String(checkpoint.signature ?? ''), 'base64url');
  const algorithm = checkpoint.alg === 'EdDSA' ? null : 'sha256';
  let good: boolean;
  try {
    good =
      checkpoint.key_id === trail.keyId &&
      verify(
        algorithm,
        checkpointSigningInput(record),
        { key: trail.key, dsaEncoding: 'ieee-p1363' },
        signature,
      );
  } catch {
    good = false;
  }
  if (!good)
    return void bad(
      'signature',
      checkpoint.key_id === trail.keyId
        ? 'the checkpoint signature does not verify'
        : 'the checkpoint was not signed by this public key',
    );
  const heads = (checkpoint.heads ?? {}) as Record<string, { seq?: unknown; hash?: unknown }>;
  for (const [instance, head] of Object.entries(heads)) {
    const seq = Number(head.seq);
    const found = trail.chains
      .get(instance)
      ?.find((each) => each.seq === seq && each.entry.position < entry.position);
    if (!found || found.hash !== head.hash) {
      bad(
        'missing',
        `record ${seq} of instance ${instance}, which this checkpoint signed, is ${found ? 'changed' : 'missing'}`,
      );
      continue;
    }
    trail.covered.set(instance, Math.max(trail.covered.get(instance) ?? 0, seq));
  }
  const own = ownFields(record);
  const instance = String(own?.instance);
  trail.covered.set(instance, Math.max(trail.covered.get(instance) ?? 0, Number(own?.seq)));
}
