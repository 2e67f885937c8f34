import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Module } from '@nestjs/common';
import { CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { McpModule } from '../../../../src/index';
import { AwsKmsAuditSigner, verifyAuditTrail, type AuditSigner } from '../../../../src/entry/audit';
import { AuditSideEffects, AuditTools } from '../../../fixtures/audit/audit-tools';
import { startTestServer } from '../../../utils/bootstrap';
import { rawToolCall, resultText } from '../../../utils/mcp';
import { startMotoKms } from '../../../utils/moto-kms';
import { forSuite } from '../../../utils/suite-resource';

/*
 * Checkpoints signed by a key that never leaves AWS KMS (moto's emulation, `Sign` with
 * ECDSA_SHA_256) verify with the public key alone. The SoftHSM2 token's case runs in the sample's
 * suite (sample-audit): SoftHSM reads SOFTHSM2_CONF from the real environment, which a Jest test
 * cannot change for itself.
 */

/** Serves three calls with `signer` into a fresh trail file; answers the file's text and path. */
async function trailSignedBy(
  signer: AuditSigner,
  folder: string,
): Promise<{ file: string; text: string }> {
  const file = join(folder, `trail-${Math.random().toString(36).slice(2)}.jsonl`);
  @Module({
    imports: [McpModule.forRoot({ audit: { file, signer, checkpointEvery: 2 } })],
    providers: [AuditTools, { provide: AuditSideEffects, useValue: new AuditSideEffects() }],
  })
  class SignedApp {}
  const server = await startTestServer('express', { imports: [SignedApp] });
  try {
    for (let call = 0; call < 3; call++)
      expect(resultText(await rawToolCall(server.url, 'plain', {}))).toBe('plain answer');
  } finally {
    await server.close();
  }
  return { file, text: readFileSync(file, 'utf8') };
}

describe('audit checkpoints signed in AWS KMS', () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'audit-signers-'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  describe('AWS KMS (moto)', () => {
    const kms = forSuite(startMotoKms, (opened) => opened.close(), { timeoutMs: 60_000 });

    it('signs them with Sign (ECDSA_SHA_256); the public key alone verifies', async () => {
      const client = {
        endpoint: kms.url,
        region: kms.env.AWS_REGION,
        credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
      };
      const created = await new KMSClient(client).send(
        new CreateKeyCommand({ KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' }),
      );
      const signer = new AwsKmsAuditSigner({ kmsKeyId: created.KeyMetadata!.KeyId!, client });
      const publicKeyPem = await signer.publicKeyPem();
      const { file } = await trailSignedBy(signer, folder);
      const verdict = await verifyAuditTrail({ file }, { publicKeyPem });
      expect(verdict).toMatchObject({ ok: true, unsigned: 0 });
      expect(verdict.checkpoints).toBeGreaterThanOrEqual(2);
    });
  });
});
