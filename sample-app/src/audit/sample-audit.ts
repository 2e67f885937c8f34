import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { McpModuleOptions } from '../../../src/index';
import {
  AwsKmsAuditSigner,
  PemAuditSigner,
  Pkcs11AuditSigner,
  type AuditSigner,
} from '../../../src/entry/audit';

let signer: AuditSigner | undefined;

/** The signer of the sample's audit checkpoints (for `GET /admin/audit/public-key`). */
export function sampleAuditSigner(): AuditSigner | undefined {
  return signer;
}

function required(name: string, why: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${why} needs ${name}`);
  return value;
}

/**
 * `MCP_AUDIT_SIGNING_KEY`: the PEM file of a private key (ECDSA P-256 or Ed25519), `pkcs11:<label>`
 * (a key pair in the HSM of `PKCS11_MODULE`, `PKCS11_TOKEN_LABEL`, `PKCS11_PIN`) or `kms:<key id>`
 * (an asymmetric AWS KMS key, the standard AWS configuration). Without it, a key made at startup.
 */
function signerFromEnv(): AuditSigner {
  const spec = process.env.MCP_AUDIT_SIGNING_KEY;
  if (!spec) {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    return new PemAuditSigner(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  }
  if (spec.startsWith('pkcs11:'))
    return new Pkcs11AuditSigner({
      module: required('PKCS11_MODULE', 'MCP_AUDIT_SIGNING_KEY=pkcs11:…'),
      tokenLabel: required('PKCS11_TOKEN_LABEL', 'MCP_AUDIT_SIGNING_KEY=pkcs11:…'),
      // Never echo the PIN.
      pin: required('PKCS11_PIN', 'MCP_AUDIT_SIGNING_KEY=pkcs11:…'),
      keyLabel: spec.slice('pkcs11:'.length),
    });
  if (spec.startsWith('kms:'))
    return new AwsKmsAuditSigner({ kmsKeyId: spec.slice('kms:'.length) });
  let pem: string;
  try {
    pem = readFileSync(spec, 'utf8');
  } catch {
    throw new Error('MCP_AUDIT_SIGNING_KEY names no readable PEM file');
  }
  return new PemAuditSigner(pem);
}

/**
 * `MCP_AUDIT=jsonl:<path>` (or `jsonl`, to stdout) or `MCP_AUDIT=redis` (with `MCP_STORE=redis`)
 * turns the audit trail on; `MCP_AUDIT_STRICT=1` makes it strict. Off by default.
 */
export function auditFromEnv(redis: McpModuleOptions['redis']): McpModuleOptions['audit'] {
  const spec = process.env.MCP_AUDIT;
  if (!spec) return undefined;
  const strict = process.env.MCP_AUDIT_STRICT === '1';
  signer = signerFromEnv();
  const common = {
    signer,
    policy: strict ? ('strict' as const) : ('best-effort' as const),
    checkpointIntervalMs: 10_000,
  };
  if (spec === 'redis') {
    if (!redis) throw new Error('MCP_AUDIT=redis needs MCP_STORE=redis');
    return { ...common, sink: 'redis' };
  }
  if (spec === 'jsonl') return { ...common, sink: 'jsonl' };
  if (spec.startsWith('jsonl:') && spec.length > 'jsonl:'.length)
    return { ...common, sink: 'jsonl', file: spec.slice('jsonl:'.length) };
  throw new Error('MCP_AUDIT must be "jsonl:<path>", "jsonl" or "redis"');
}
