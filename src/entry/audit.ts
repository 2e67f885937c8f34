// `nestjs-mcp/audit`: the audit trail (docs/audit.md) — its options, its record, the checkpoint
// signers (in memory, in a PKCS#11 token, in AWS KMS), the sink port and the verifier that
// `nestjs-mcp-audit verify` runs. The PKCS#11 and KMS signers load their optional peers
// (`pkcs11js`, `@aws-sdk/client-kms`) only when made.

export type { McpAuditOptions } from '../ext/audit/audit.options';
export type { AuditRecord } from '../ext/audit/audit-record';
export { AuditSigner } from '../ext/audit/audit-signer';
export type { AuditSink } from '../ext/audit/sinks/audit-sink';
export { PemAuditSigner } from '../ext/audit/signing/pem-audit-signer';
export { Pkcs11AuditSigner } from '../ext/audit/signing/pkcs11-audit-signer';
export { AwsKmsAuditSigner } from '../ext/audit/signing/aws-kms-audit-signer';
export { verifyAuditTrail } from '../ext/audit/verify/audit-verifier';
export type { AuditVerdict } from '../ext/audit/verify/audit-verdict';
