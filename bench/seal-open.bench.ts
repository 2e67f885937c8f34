/**
 * Cost of framework request-state protection (seal + open through RequestStateSealer and the
 * AES-256-GCM protector: header, canonical associated data, JSON, limits, base64url) against a bare
 * AES-256-GCM encrypt + decrypt of the same plaintext bytes with a fixed key, measured in one run.
 *
 * Run: npm run bench
 */
import 'reflect-metadata';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { stringify } from 'lossless-json';
import { KeyringManager } from '../src/keyring/keyring-manager.service';
import type { RequestStateLimits } from '../src/request-state/sealing/request-state-limits';
import { AesGcmRequestStateProtector } from '../src/request-state/sealing/aes-gcm-request-state.protector';
import type { RequestStateBinding } from '../src/request-state/sealing/request-state-binding';
import { RequestStateSealer } from '../src/request-state/sealing/request-state.sealer';

const SAMPLES = 7;
const ITERATIONS = 4_000;

const state = {
  phase: 'awaiting-approval',
  transfer: { amount: '12.50', to: 'acct-4711', memo: 'Quarterly supplier invoice #2026-118' },
  answers: ['north', 'east', 'south'],
};
const binding: RequestStateBinding = {
  endpoint: '/mcp',
  protocolVersion: '2026-07-28',
  method: 'tools/call',
  target: 'transfer_funds',
  partition: 'user:alice',
  stableParams: '{"arguments":{"amount":1e2,"to":"acct-42"},"name":"transfer_funds"}',
  stableArguments: () => '{"amount":1e2,"to":"acct-42"}',
  definition: 'HxVn0dQ2mZ3o8b5s1Y7p4cWk9aTfRgLjEuIyOwKqPvB',
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function timePerOp(run: () => Promise<void> | void): Promise<number> {
  for (let i = 0; i < 500; i++) await run();
  const samples: number[] = [];
  for (let s = 0; s < SAMPLES; s++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < ITERATIONS; i++) await run();
    samples.push(Number(process.hrtime.bigint() - start) / ITERATIONS);
  }
  return median(samples);
}

async function main(): Promise<void> {
  const material = randomBytes(32);
  const keyring = new KeyringManager({ keyring: { active: 'bench', keys: { bench: material } } });
  const limits = {
    maxEncodedBytes: 65_536,
    maxDecodedBytes: 49_152,
    maxLifetimeMs: 900_000,
    maxRounds: 10,
  } as RequestStateLimits;
  const sealer = new RequestStateSealer(limits, new AesGcmRequestStateProtector(keyring));

  // The same bytes the sealer encrypts: the application state plus the asked-keys map.
  const plaintext = Buffer.from(stringify({ s: state, k: { approval: 'elicitation' } }) as string);
  const aad = Buffer.from(JSON.stringify(binding));
  const key = randomBytes(32);

  const bare = await timePerOp(() => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(aad);
    const sealed = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    const tag = cipher.getAuthTag();
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(aad);
    decipher.setAuthTag(tag);
    Buffer.concat([decipher.update(sealed), decipher.final()]);
  });

  let requestId = 1;
  const framework = await timePerOp(async () => {
    const token = await sealer.seal(
      state,
      { approval: 'elicitation' },
      binding,
      requestId,
      undefined,
    );
    await sealer.open(token, binding, requestId + 1);
    requestId += 2;
  });

  const token = await sealer.seal(state, { approval: 'elicitation' }, binding, 1, undefined);
  console.log(`plaintext ${plaintext.length} B, sealed token ${token.length} B`);
  console.log(`bare AES-256-GCM encrypt+decrypt: ${(bare / 1000).toFixed(2)} µs/op`);
  console.log(`framework seal+open:              ${(framework / 1000).toFixed(2)} µs/op`);
  console.log(
    `ratio framework/bare: ${(framework / bare).toFixed(2)}x (median of ${SAMPLES} samples × ${ITERATIONS} ops)`,
  );
}

void main();
