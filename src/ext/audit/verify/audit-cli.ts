#!/usr/bin/env node
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { StreamReader } from './audit-sources';
import type { AuditVerdict } from './audit-verdict';
import { verifyAuditTrail } from './audit-verifier';

const USAGE = `Usage: nestjs-mcp-audit verify (--file PATH | --redis URL [--stream KEY] [--cluster])
                              --public-key PEM [--allow-unsigned-tail] [--json]

  --file PATH            an audit trail in JSON lines
  --redis URL            a Redis server (redis://…) holding the fleet's audit stream
  --stream KEY           the stream's key (default {nestjs-mcp:audit})
  --cluster              URL is a node of a Redis Cluster
  --public-key PEM       the checkpoint key: a PEM file, or the PEM itself
  --allow-unsigned-tail  report records after the last checkpoint without failing
  --json                 print the verdict as JSON

Exit status: 0 the trail verifies; 1 a record is bad (named); 2 usage or I/O error.`;

/** The default stream key, under the module's default Redis prefix. */
const DEFAULT_STREAM = '{nestjs-mcp:audit}';

class UsageError extends Error {}

/** Runs the command; answers its exit status. @internal */
export async function main(
  argv: readonly string[],
  out: { write(text: string): unknown } = process.stdout,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        file: { type: 'string' },
        redis: { type: 'string' },
        stream: { type: 'string' },
        cluster: { type: 'boolean' },
        'public-key': { type: 'string' },
        'allow-unsigned-tail': { type: 'boolean' },
        json: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    });
    const { values, positionals } = parsed;
    if (values.help) {
      out.write(`${USAGE}\n`);
      return 0;
    }
    if (positionals[0] !== 'verify' || positionals.length !== 1)
      throw new UsageError('the command is "verify"');
    if ((values.file === undefined) === (values.redis === undefined))
      throw new UsageError('give one of --file and --redis');
    if (values['public-key'] === undefined) throw new UsageError('--public-key is required');
  } catch (error) {
    process.stderr.write(`nestjs-mcp-audit: ${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const { values } = parsed;
  let redis: { quit(): Promise<unknown>; disconnect(): void } | undefined;
  try {
    const publicKeyPem = pemOf(values['public-key'] as string);
    let source;
    if (values.file !== undefined) {
      if (!existsSync(values.file)) throw new Error(`no such file: ${values.file}`);
      source = { file: values.file };
    } else {
      const client = connect(values.redis as string, values.cluster === true);
      redis = client;
      source = { redis: client, stream: values.stream ?? DEFAULT_STREAM };
    }
    const verdict = await verifyAuditTrail(source, {
      publicKeyPem,
      allowUnsignedTail: values['allow-unsigned-tail'] === true,
    });
    out.write(values.json ? `${JSON.stringify(verdict)}\n` : report(verdict));
    return verdict.ok ? 0 : 1;
  } catch (error) {
    process.stderr.write(`nestjs-mcp-audit: ${(error as Error).message}\n`);
    return 2;
  } finally {
    await redis?.quit().catch(() => redis?.disconnect());
  }
}

function pemOf(value: string): string {
  if (value.includes('-----BEGIN')) return value;
  try {
    return readFileSync(value, 'utf8');
  } catch {
    throw new Error(`cannot read the public key file ${value}`);
  }
}

function connect(
  url: string,
  cluster: boolean,
): StreamReader & { quit(): Promise<unknown>; disconnect(): void } {
  let ioredis: {
    default: new (url: string, options: object) => never;
    Cluster: new (nodes: string[], options: object) => never;
  };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    ioredis = require('ioredis');
  } catch {
    throw new Error('--redis needs the package ioredis (npm install ioredis)');
  }
  return cluster
    ? new ioredis.Cluster([url], { redisOptions: { maxRetriesPerRequest: 1 } })
    : new ioredis.default(url, { maxRetriesPerRequest: 1, enableOfflineQueue: true });
}

function report(verdict: AuditVerdict): string {
  const lines = [
    `${verdict.records} record(s) in ${verdict.chains} chain(s), ${verdict.checkpoints} checkpoint(s); ${verdict.unsigned} after the last checkpoint`,
  ];
  if (verdict.startedWithoutOutcome.length > 0)
    lines.push(
      `${verdict.startedWithoutOutcome.length} call(s) started without an outcome record: ${verdict.startedWithoutOutcome.slice(0, 5).join(', ')}`,
    );
  const bad = verdict.firstBad;
  lines.push(
    bad
      ? `FAILED at record ${bad.position}${bad.id ? ` (stream id ${bad.id})` : ''}, event_id ${bad.eventId ?? '(none)'}: ${bad.problem} — ${bad.message}`
      : 'OK: every record chains, every checkpoint verifies',
  );
  return `${lines.join('\n')}\n`;
}

if (require.main === module)
  void main(process.argv.slice(2)).then((status) => {
    process.exitCode = status;
  });
