import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for AWS KMS on loopback, speaking its wire protocol (AWS JSON 1.1, `X-Amz-Target:
 * TrentService.<Op>`), so the official `@aws-sdk/client-kms` talks to it through `AWS_ENDPOINT_URL`
 * unchanged. `GenerateDataKey` and `Decrypt` only; blobs are AES-256-GCM under a master key that
 * never leaves this object, bound to the KMS key id and the encryption context (as KMS binds them),
 * so a blob decrypted with another context is `InvalidCiphertextException`. No AWS is reachable
 * from the test machines; the SDK's request signing is not checked.
 */
export interface KmsServer {
  readonly url: string;
  /** Requests served, by operation. */
  readonly calls: Map<string, number>;
  /** Answers every request with HTTP 503 while true (KMS unreachable). */
  failing: boolean;
  close(): Promise<void>;
}

export async function startKmsServer(kmsKeyId: string): Promise<KmsServer> {
  const master = randomBytes(32);
  const calls = new Map<string, number>();
  const state = { failing: false };
  const aadOf = (keyId: string, context: unknown) =>
    Buffer.from(JSON.stringify([keyId, Object.entries((context ?? {}) as object).sort()]));

  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      const operation = String(request.headers['x-amz-target'] ?? '').replace('TrentService.', '');
      calls.set(operation, (calls.get(operation) ?? 0) + 1);
      const answer = (status: number, payload: object) => {
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        response.end(JSON.stringify(payload));
      };
      const fault = (type: string, message: string) => answer(400, { __type: type, message });
      if (state.failing) return answer(503, { __type: 'KMSInternalException', message: 'down' });
      const input = JSON.parse(body || '{}') as Record<string, unknown>;
      if (input.KeyId !== undefined && input.KeyId !== kmsKeyId)
        return fault('NotFoundException', `Key '${String(input.KeyId)}' does not exist`);
      const aad = aadOf(kmsKeyId, input.EncryptionContext);
      if (operation === 'GenerateDataKey') {
        const plaintext = randomBytes(32);
        const iv = randomBytes(12);
        const cipher = createCipheriv('aes-256-gcm', master, iv).setAAD(aad);
        const sealed = Buffer.concat([
          iv,
          cipher.update(plaintext),
          cipher.final(),
          cipher.getAuthTag(),
        ]);
        return answer(200, {
          KeyId: kmsKeyId,
          CiphertextBlob: sealed.toString('base64'),
          Plaintext: plaintext.toString('base64'),
        });
      }
      if (operation === 'Decrypt') {
        const sealed = Buffer.from(String(input.CiphertextBlob ?? ''), 'base64');
        try {
          const decipher = createDecipheriv('aes-256-gcm', master, sealed.subarray(0, 12)).setAAD(
            aad,
          );
          decipher.setAuthTag(sealed.subarray(sealed.length - 16));
          const plaintext = Buffer.concat([
            decipher.update(sealed.subarray(12, sealed.length - 16)),
            decipher.final(),
          ]);
          return answer(200, { KeyId: kmsKeyId, Plaintext: plaintext.toString('base64') });
        } catch {
          return fault(
            'InvalidCiphertextException',
            'The ciphertext is invalid for this key and context',
          );
        }
      }
      return fault('UnsupportedOperationException', operation);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    get failing() {
      return state.failing;
    },
    set failing(value: boolean) {
      state.failing = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive sockets of clients that were never destroyed (an app that failed to start).
        server.closeAllConnections();
      }),
  };
}
